import { describe, expect, test } from "bun:test";
import { waitFor } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { redisKeys } from "../../../shared/core/redis";
import { followToEnd, openTurnFeed } from "../../../shared/events/turnFeed";
import {
  chunkJson,
  decodeTurnEvent,
  LOG_TTL_AFTER_END_SECONDS,
  replayTurn,
  turnPublisher,
} from "../../../shared/events/turnLog";
import { testDeps } from "../../helpers/infra";

/**
 * Writes a turn's events by hand, as a worker would (log, then publish), so a test can also log an
 * event without publishing it: a message pub/sub lost.
 */
function rawTurnWriter(deps: Deps, turnId: string) {
  const keys = redisKeys(deps.env.REDIS_PREFIX);
  const logged = (seq: number, event: object) =>
    deps.redis.xadd(keys.turnLog(turnId), "*", "e", JSON.stringify({ seq, ...event }));
  const published = async (seq: number, event: object) => {
    await logged(seq, event);
    await deps.redis.spublish(keys.turnChannel(turnId), JSON.stringify({ seq, ...event }));
  };
  return { keys, logged, published };
}

describe("a chat turn's Redis log", () => {
  test("is kept while the turn runs and expires soon after its end", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const key = redisKeys(deps.env.REDIS_PREFIX).turnLog(turnId);
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);

    await publisher.publish({ chunk: { type: "start" } });
    await publisher.publish({ chunk: { type: "text-start", id: "t" } });
    // A turn may run for minutes: its log must outlive it for late readers and reconnects.
    expect(await deps.redis.ttl(key)).toBeGreaterThan(600);

    await publisher.publish({ end: "ok" });
    const ttl = await deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LOG_TTL_AFTER_END_SECONDS);
    // Until then a relay that subscribed just before the end still replays every event.
    expect((await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  test("a follower gets every event exactly once, in order, whether it was published before, while or after it subscribed", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);
    const text = (id: string) => ({ chunk: { type: "text-start" as const, id } });
    await publisher.publish({ chunk: { type: "start" } });
    const seen: number[] = [];
    const feed = openTurnFeed(deps, turnId, 0);
    // Runs while the subscription is being set up, as the enqueue of a new turn does.
    await publisher.publish(text("a"));
    await publisher.publish(text("b"));
    setTimeout(async () => {
      await publisher.publish(text("c"));
      await publisher.publish({ end: "ok" });
    }, 20);
    const result = await followToEnd(feed, (event) => seen.push(event.seq));
    expect(result).toBe("ok");
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  test("events published in one burst reach a subscriber and the log once each, in order", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);
    const seen: number[] = [];
    const done = followToEnd(openTurnFeed(deps, turnId, 0), (event) => seen.push(event.seq));
    // Published once the subscription is live, so they come by pub/sub, not by the log's catch-up.
    const channel = redisKeys(deps.env.REDIS_PREFIX).turnChannel(turnId);
    await waitFor("the feed's subscription", async () => {
      const [, subscribers] = (await deps.redis.call("pubsub", "shardnumsub", channel)) as [string, number];
      return subscribers > 0;
    });
    // As the offline model does: a whole answer in one task, nothing awaited in between.
    const sends = [publisher.publish({ chunk: { type: "start" } })];
    for (let i = 0; i < 30; i++)
      sends.push(publisher.publish({ chunk: { type: "text-delta", id: "t", delta: `${i}` } }));
    sends.push(publisher.publish({ end: "ok" }));
    await Promise.all(sends);
    expect(await done).toBe("ok");
    const all = Array.from({ length: 32 }, (_, i) => i + 1);
    expect(seen).toEqual(all);
    expect((await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, 0)).map((e) => e.seq)).toEqual(all);
  });

  test("a follower passes events on while its `start` is still running", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);
    let delivered: () => void = () => {};
    const firstDelivered = new Promise<void>((resolve) => (delivered = resolve));
    const following = followToEnd(openTurnFeed(deps, turnId, 0), (event) => {
      if (event.seq === 1) delivered();
    });
    // Like a new turn whose job is picked up before the API's own writes return: this work ends
    // only after the turn's first chunk reached the follower.
    await publisher.publish({ chunk: { type: "start" } });
    await firstDelivered;
    await publisher.publish({ end: "ok" });
    const result = await following;
    expect(result).toBe("ok");
  });

  test("an event past a gap waits while the log is read for the missing one (lost by pub/sub)", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const { keys, logged, published } = rawTurnWriter(deps, turnId);
    const seen: number[] = [];
    const following = followToEnd(openTurnFeed(deps, turnId, 0), (event) => seen.push(event.seq));
    // Live before anything is sent, so the events come through the channel and the gap is a real one.
    await waitFor("subscribed", async () => {
      const [, count] = (await deps.redis.call("PUBSUB", "SHARDNUMSUB", keys.turnChannel(turnId))) as [string, number];
      return count === 1;
    });
    await published(1, { chunk: { type: "start" } });
    // Logged but never published: what a failover or a reconnect of the subscriber loses.
    await logged(2, { chunk: { type: "text-start", id: "t" } });
    await published(3, { chunk: { type: "text-end", id: "t" } });
    await published(4, { end: "ok" });
    expect(await following).toBe("ok");
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  test("a lost `end` is found in the log once the feed has been quiet, not at the turn's timeout", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);
    const seen: number[] = [];
    const following = followToEnd(openTurnFeed(deps, turnId, 0), (event) => seen.push(event.seq));
    await publisher.publish({ chunk: { type: "start" } });
    await deps.redis.xadd(
      redisKeys(deps.env.REDIS_PREFIX).turnLog(turnId),
      "*",
      "e",
      JSON.stringify({ seq: 2, end: "ok" }),
    );
    // Without the catch-up the feed would wait for the turn's timeout and end with an error.
    expect(await following).toBe("ok");
    expect(seen).toEqual([1, 2]);
  });

  test("a relayed chunk's JSON is byte for byte what the worker serialized, however its text reads", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turnId);
    // Text that looks like the envelope, escapes, line breaks (SSE frames on them) and non-ASCII.
    const deltas = ['{"seq":9,"chunk":{}}', '","chunk":"x', "line\nbreak\r\u2028", 'naïve 🩺 \\ "quoted"', "}"];
    const chunks = [
      { type: "start" as const },
      ...deltas.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
    ];
    const relayed: string[] = [];
    const done = followToEnd(openTurnFeed(deps, turnId, 0), (event) => {
      if ("chunk" in event) relayed.push(chunkJson(event));
    });
    for (const chunk of chunks) await publisher.publish({ chunk });
    await publisher.publish({ end: "ok" });
    expect(await done).toBe("ok");
    expect(relayed).toEqual(chunks.map((chunk) => JSON.stringify(chunk)));
    const logged = await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, 0);
    expect(logged.map((event) => ("chunk" in event ? event.chunk : event))).toEqual([...chunks, { seq: 7, end: "ok" }]);
    // An event in any other shape is parsed as it is.
    expect(decodeTurnEvent('{"chunk":{"type":"start"},"seq":3}')).toEqual({ seq: 3, chunk: { type: "start" } });
    expect(decodeTurnEvent('{"seq":4,"end":"error"}')).toEqual({ seq: 4, end: "error" });
  });

  test("a feed opened before its turn is queued reads no log at first, and still repairs a lost first event", async () => {
    const deps = await testDeps();
    const turnId = Bun.randomUUIDv7();
    const { logged, published } = rawTurnWriter(deps, turnId);
    const feed = openTurnFeed(deps, turnId, 0, { unqueued: true });
    await feed.live;
    const seen: number[] = [];
    const following = followToEnd(feed, (event) => seen.push(event.seq));
    // Logged, never published: lost by pub/sub. Nothing follows it for now, and the feed does not
    // read the log on its own before the quiet check (a second away).
    await logged(1, { chunk: { type: "start" } });
    await published(2, { chunk: { type: "text-start", id: "t" } });
    await published(3, { end: "ok" });
    expect(await following).toBe("ok");
    expect(seen).toEqual([1, 2, 3]);
  });
});
