import type { UIMessageChunk } from "ai";
import { type Redis, redisKeys } from "../core/redis";

/**
 * Events of one chat turn, numbered from 1. The worker publishes each on the turn's pub/sub
 * channel for live delivery and appends it to a capped, expiring Redis stream, so a client that
 * subscribes late or reconnects with Last-Event-ID replays what it missed and then goes live.
 * The last event is `end`. This file is the writing side (the worker) and the log's reads;
 * turnFeed.ts follows a turn.
 */
export type TurnEvent = { seq: number; chunk: UIMessageChunk } | { seq: number; end: "ok" | "error" };

const LOG_MAX = 5_000;
const LOG_TTL_SECONDS = 3_600;
/**
 * After `end`, the log only serves relays that subscribed just before it (a reconnect now gets 204
 * and reads the stored reply), so it goes soon: kept for the hour, the logs of finished turns would
 * be most of Redis's memory under load (docs/reliability.md).
 */
export const LOG_TTL_AFTER_END_SECONDS = 60;

/**
 * Publishes a turn's events in order. The first goes out at once (the client's time to first
 * chunk); after it, events produced in one event-loop task go out together, as one pipeline (one
 * socket write), so a model that yields many chunks at once (the offline model yields a whole
 * answer) does not cost a write per chunk. A streaming provider's chunks come in separate tasks
 * and go out as they come. Each event's promise settles when the send that carried it has.
 */
export function turnPublisher(redis: Redis, prefix: string, turnId: string, startAfter = 0) {
  const keys = redisKeys(prefix);
  type Pending = { payload: string; end: boolean; first: boolean };
  let seq = startAfter;
  let batch: { events: Pending[]; sent: Promise<void> } | undefined;
  const send = async (events: Pending[]) => {
    const log = keys.turnLog(turnId);
    const pipeline = redis.pipeline();
    for (const event of events) {
      // Logged before it is published, so a reader that replays the log after subscribing never
      // misses an event; the log's expiry is set with the first event and shortened at the end.
      pipeline.xadd(log, "MAXLEN", "~", String(LOG_MAX), "*", "e", event.payload);
      if (event.end) pipeline.expire(log, LOG_TTL_AFTER_END_SECONDS);
      else if (event.first) pipeline.expire(log, LOG_TTL_SECONDS);
      // Sharded pub/sub: the channel lives in the log's slot, so on a cluster the chunk goes to one
      // primary (and its subscribers) rather than to every node.
      pipeline.spublish(keys.turnChannel(turnId), event.payload);
    }
    const results = await pipeline.exec();
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  };
  return {
    publish(event: { chunk: UIMessageChunk } | { end: "ok" | "error" }): Promise<void> {
      seq += 1;
      const entry = { payload: JSON.stringify({ seq, ...event }), end: "end" in event, first: seq === startAfter + 1 };
      if (entry.first) return send([entry]);
      if (!batch) {
        const events: Pending[] = [];
        const sent = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          batch = undefined;
          return send(events);
        });
        batch = { events, sent };
      }
      batch.events.push(entry);
      return batch.sent;
    },
  };
}

/** The newest logged event's `seq` (0 when nothing is logged): one entry read, whatever the log's length. */
export async function latestLoggedSeq(redis: Redis, prefix: string, turnId: string): Promise<number> {
  const [newest] = await redis.xrevrange(redisKeys(prefix).turnLog(turnId), "+", "-", "COUNT", 1);
  return newest ? (JSON.parse(newest[1][1] as string) as TurnEvent).seq : 0;
}

/** Every logged event of a turn after `afterSeq`, oldest first. */
export async function replayTurn(redis: Redis, prefix: string, turnId: string, afterSeq: number): Promise<TurnEvent[]> {
  const entries = await redis.xrange(redisKeys(prefix).turnLog(turnId), "-", "+");
  return entries
    .map(([, fields]) => JSON.parse(fields[1] as string) as TurnEvent)
    .filter((event) => event.seq > afterSeq);
}
