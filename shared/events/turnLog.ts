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

/**
 * A chunk event as Redis carried it: the chunk's JSON text is kept and parsed only if something
 * reads `chunk`. The SSE relay writes `json` as it is, so a relayed chunk is never parsed and
 * serialized again (a parse and a stringify per chunk were most of the relay's own CPU).
 */
export class LoggedChunk {
  private parsed: UIMessageChunk | undefined;
  constructor(
    readonly seq: number,
    /** The chunk's JSON, exactly as the worker wrote it. */
    readonly json: string,
  ) {}
  get chunk(): UIMessageChunk {
    this.parsed ??= JSON.parse(this.json) as UIMessageChunk;
    return this.parsed;
  }
}

/** The chunk's JSON text: as published when the event came from Redis, else serialized. */
export function chunkJson(event: { seq: number; chunk: UIMessageChunk }): string {
  return event instanceof LoggedChunk ? event.json : JSON.stringify(event.chunk);
}

const SEQ_PREFIX = '{"seq":';
const CHUNK_KEY = '"chunk":';

/**
 * Reads a published or logged event. `JSON.stringify({ seq, chunk })` (the publisher's encoding)
 * always writes `{"seq":<n>,"chunk":<json>}`, so a chunk's number and JSON are cut out of the text
 * without parsing it; anything else (an `end`) is parsed.
 */
export function decodeTurnEvent(payload: string): TurnEvent {
  if (payload.startsWith(SEQ_PREFIX) && payload.endsWith("}")) {
    const comma = payload.indexOf(",", SEQ_PREFIX.length);
    if (comma > 0 && payload.startsWith(CHUNK_KEY, comma + 1)) {
      const seq = Number(payload.slice(SEQ_PREFIX.length, comma));
      if (Number.isSafeInteger(seq)) return new LoggedChunk(seq, payload.slice(comma + 1 + CHUNK_KEY.length, -1));
    }
  }
  return JSON.parse(payload) as TurnEvent;
}

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
  return newest ? decodeTurnEvent(newest[1][1] as string).seq : 0;
}

/** Every logged event of a turn after `afterSeq`, oldest first. */
export async function replayTurn(redis: Redis, prefix: string, turnId: string, afterSeq: number): Promise<TurnEvent[]> {
  const entries = await redis.xrange(redisKeys(prefix).turnLog(turnId), "-", "+");
  return entries.map(([, fields]) => decodeTurnEvent(fields[1] as string)).filter((event) => event.seq > afterSeq);
}
