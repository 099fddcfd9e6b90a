import { describe, expect, test } from "bun:test";
import { LOG_TTL_AFTER_END_SECONDS, replayTurn, turnPublisher } from "../../shared/chat/turnEvents";
import { redisKeys } from "../../shared/redis";
import { testDeps } from "../helpers/infra";

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
});
