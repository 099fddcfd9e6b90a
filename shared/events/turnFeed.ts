import type { UIMessageChunk } from "ai";
import type { Env } from "../core/env";
import type { Redis } from "../core/redis";
import { latestLoggedSeq, replayTurn, type TurnEvent } from "./turnLog";
import type { TurnSubscriber } from "./turnSubscriber";

type FeedDeps = {
  redis: Redis;
  env: Pick<Env, "REDIS_PREFIX" | "CHAT_TURN_TIMEOUT_MS">;
  turnSubscriber: TurnSubscriber;
};

/**
 * One turn's events after a sequence number, read with `for await`: each event once, in `seq`
 * order without a gap, the turn's `end` last. The subscription is opened when the feed is, before
 * anything is read, so it can be opened before the turn is queued; events that arrive before the
 * reader starts are kept for it. Iterate once.
 *
 * - Catch-up: subscribed first, then the capped log is replayed; a worker logs each event before
 *   publishing it, so whatever it published before the subscription was live is in the log, and an
 *   event in both is dropped by its `seq`. A feed opened for a turn not yet queued (`unqueued`)
 *   skips that replay: its opener queues the turn only once `live` has resolved, so no event can
 *   have been published before the subscription.
 * - Gap repair: pub/sub delivers at most once (a message sent while the subscription moves, in a
 *   Redis failover or a reconnect, is lost), so an event past a gap waits while the log is read for
 *   the missing ones, and a feed quiet for QUIET_CATCH_UP_MS reads the log after its last event.
 * - No hang: without an `end` within CHAT_TURN_TIMEOUT_MS of the first read, the feed yields an error
 *   chunk and an `end: "error"`. The iteration throws if subscribing or the first replay failed.
 */
export interface TurnFeed extends AsyncIterable<TurnEvent> {
  readonly turnId: string;
  /** Events received and in order but not yet read: a reader that batches writes until it is 0. */
  readonly buffered: number;
  /** Resolves once the subscription is live (and the first replay, if any, is in); rejects if it failed. */
  readonly live: Promise<void>;
  /** Stops following (the reader went away; the turn runs on): the iteration ends, the subscription closes. */
  close(): Promise<void>;
}

/** How following a turn ended: the turn's own `end`, or the reader stopped first. */
export type TurnEnd = "ok" | "error" | "aborted";

/** A feed quiet this long reads the log after its last event, so a lost `end` does not wait for the timeout. */
export const QUIET_CATCH_UP_MS = 1000;

/** Follows a feed to its end, for a reader that wants only the outcome (the JSON reply, tests). */
export async function followToEnd(feed: TurnFeed, onEvent: (event: TurnEvent) => void = () => {}): Promise<TurnEnd> {
  let end: TurnEnd = "aborted";
  for await (const event of feed) {
    onEvent(event);
    if ("end" in event) end = event.end;
  }
  return end;
}

/**
 * `unqueued`: the turn is not queued yet and will be only after `live` resolved, so nothing can
 * have been published before the subscription and the log is not read (one XRANGE less per turn).
 * Gap repair still reads it when an event goes missing.
 */
export function openTurnFeed(
  deps: FeedDeps,
  turnId: string,
  afterSeq: number,
  options?: { unqueued?: boolean },
): TurnFeed {
  const feed = new Feed(deps, turnId, afterSeq, options?.unqueued ?? false);
  const live = feed.subscribed.then(() => {});
  live.catch(() => {});
  return {
    turnId,
    get buffered() {
      return feed.ready.length;
    },
    live,
    [Symbol.asyncIterator]: () => feed.events(),
    close: () => feed.close(),
  };
}

class Feed {
  /** The last `seq` passed on: an event at or below it is a repeat (in both the log and the channel). */
  private last: number;
  /** In order, waiting for the reader. */
  readonly ready: TurnEvent[] = [];
  /** Past a gap, or received before the first replay finished: passed on once what comes before them is. */
  private readonly early = new Map<number, TurnEvent>();
  private wake: (() => void) | undefined;
  /** The first replay is in: events are put in order as they come. */
  private live = false;
  /** Ended (the turn's end, its timeout, or the reader left): nothing more is passed on. */
  private closed = false;
  private heardAt = Date.now();
  private reading = false;
  private again = false;
  readonly subscribed: Promise<() => Promise<void>>;

  constructor(
    private readonly deps: FeedDeps,
    readonly turnId: string,
    afterSeq: number,
    private readonly unqueued: boolean,
  ) {
    this.last = afterSeq;
    this.subscribed = this.subscribe();
    // Awaited by the reader or by `close`; until then a failure must not count as unhandled.
    this.subscribed.catch(() => {});
  }

  private async subscribe(): Promise<() => Promise<void>> {
    const unlisten = await this.deps.turnSubscriber.listen(this.turnId, (event) => this.accept(event));
    let stopped: Promise<void> | undefined;
    const stop = () => (stopped ??= unlisten());
    try {
      if (!this.unqueued) for (const event of await this.replay()) this.hold(event);
    } catch (error) {
      await stop();
      throw error;
    }
    this.live = true;
    const held = [...this.early.values()].sort((a, b) => a.seq - b.seq);
    this.early.clear();
    for (const event of held) this.accept(event);
    return stop;
  }

  async *events(): AsyncGenerator<TurnEvent> {
    const stop = await this.subscribed;
    const { CHAT_TURN_TIMEOUT_MS } = this.deps.env;
    const deadline = setTimeout(() => this.timedOut(), CHAT_TURN_TIMEOUT_MS);
    const quiet = setInterval(() => this.quietCheck(), QUIET_CATCH_UP_MS);
    try {
      for (;;) {
        const next = this.ready.shift();
        if (next) yield next;
        else if (this.closed) return;
        else await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.closed = true;
      clearTimeout(deadline);
      clearInterval(quiet);
      await stop();
    }
  }

  async close(): Promise<void> {
    this.finish();
    this.ready.length = 0;
    await this.subscribed.then((stop) => stop()).catch(() => {});
  }

  private replay(): Promise<TurnEvent[]> {
    return replayTurn(this.deps.redis, this.deps.env.REDIS_PREFIX, this.turnId, this.last);
  }

  private hold(event: TurnEvent): void {
    if (event.seq > this.last || "end" in event) this.early.set(event.seq, event);
  }

  /**
   * An event from the channel or the log. An `end` is never dropped: after a failover the failure
   * clean-up may number it at or below what this feed passed on.
   */
  private accept(event: TurnEvent): void {
    this.heardAt = Date.now();
    if (this.closed) return;
    if (!this.live || ("end" in event && event.seq <= this.last)) {
      // Held until the first replay is in; an `end` is passed on whatever its number.
      if (this.live) this.deliver(event);
      else this.hold(event);
      return;
    }
    if (event.seq <= this.last) return;
    if (event.seq > this.last + 1) {
      this.early.set(event.seq, event);
      this.catchUp();
      return;
    }
    this.deliver(event);
    this.drain();
  }

  private deliver(event: TurnEvent): void {
    if (this.closed) return;
    this.last = Math.max(this.last, event.seq);
    this.ready.push(event);
    if ("end" in event) this.finish();
    this.wake?.();
  }

  private finish(): void {
    this.closed = true;
    this.wake?.();
  }

  private drain(): void {
    for (let next = this.early.get(this.last + 1); next && !this.closed; next = this.early.get(this.last + 1)) {
      this.early.delete(next.seq);
      this.deliver(next);
    }
  }

  /**
   * Reads the log after the last event passed on. A gap the log cannot fill (it starts after it:
   * capped, or lost with a failed Redis primary) is skipped: the feed goes on from the earliest
   * event held.
   */
  private catchUp(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.replay()
      .then((logged) => {
        for (const event of logged) if (event.seq > this.last) this.early.set(event.seq, event);
        this.drain();
        const firstLogged = logged[0]?.seq ?? Number.POSITIVE_INFINITY;
        if (this.early.size > 0 && firstLogged > this.last + 1 && !this.again) {
          const seq = Math.min(...this.early.keys());
          const event = this.early.get(seq) as TurnEvent;
          this.early.delete(seq);
          this.deliver(event);
          this.drain();
        }
      })
      .catch(() => {})
      .finally(() => {
        this.reading = false;
        // Something else went missing while the log was read: read it again.
        if (this.again || (this.early.size > 0 && !this.closed)) {
          this.again = false;
          if (this.early.size > 0) this.catchUp();
        }
      });
  }

  private async quietCheck(): Promise<void> {
    if (this.closed || Date.now() - this.heardAt < QUIET_CATCH_UP_MS) return;
    // The newest entry first (one read); the log only when it holds something new.
    const newest = await latestLoggedSeq(this.deps.redis, this.deps.env.REDIS_PREFIX, this.turnId).catch(() => 0);
    if (newest > this.last) this.catchUp();
  }

  /** No `end` in time: an error chunk (numbered next) and an `end`, so a client never hangs. */
  private timedOut(): void {
    if (this.closed) return;
    const chunk: UIMessageChunk = { type: "error", errorText: "The assistant did not finish in time; please retry." };
    // Closed first: nothing the worker still sends is passed on after this chunk.
    this.finish();
    this.ready.push({ seq: this.last + 1, chunk }, { seq: this.last + 2, end: "error" });
    this.wake?.();
  }
}
