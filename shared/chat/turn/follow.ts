import type { UIMessageChunk } from "ai";
import type { Deps } from "../../context/deps";
import { latestLoggedSeq, replayTurn, type TurnEvent } from "../../events/turnEvents";

type FeedDeps = Pick<Deps, "redis" | "env" | "turnSubscriber">;

/** How following a turn ended: the turn's own `end`, or the follower went away. */
export type TurnEnd = "ok" | "error" | "aborted";

/**
 * One turn's events after a sequence number, from a subscription opened before anything is read.
 * Events that arrive before `follow` is called are held, so the subscription can be opened before
 * the turn is queued and followed once the queueing has succeeded.
 */
export interface TurnFeed {
  readonly turnId: string;
  /**
   * Passes each event on once, in order, and resolves at the turn's `end`, at `signal`, or at
   * CHAT_TURN_TIMEOUT_MS with an error chunk (so a client never hangs). Rejects if subscribing
   * or replaying failed. Call it once; the subscription is closed when it settles.
   */
  follow(onEvent: (event: TurnEvent) => void, signal?: AbortSignal): Promise<TurnEnd>;
  /** Closes the subscription without following (the turn itself runs on). */
  close(): Promise<void>;
}

/**
 * Subscribes to a turn, then replays its capped log after `afterSeq`. A worker logs each event
 * before publishing it, so whatever it published before the subscription was live is in the log,
 * and an event in both is dropped by its `seq`.
 */
export function openTurnFeed(deps: FeedDeps, turnId: string, afterSeq: number): TurnFeed {
  const state: FeedState = { held: [], pass: undefined, last: afterSeq, turnId, heardAt: Date.now(), closed: false };
  const subscribed = subscribe(deps, turnId, afterSeq, state);
  // Awaited by `follow` or `close`; until then a failure must not count as unhandled.
  subscribed.catch(() => {});
  return {
    turnId,
    follow: (onEvent, signal) => follow(deps, state, subscribed, onEvent, signal),
    async close() {
      await subscribed.then((stop) => stop()).catch(() => {});
    },
  };
}

interface FeedState {
  /** Events received before `follow`, passed on (in `seq` order) once it is called. */
  held: TurnEvent[];
  pass: ((event: TurnEvent) => void) | undefined;
  /** The last `seq` passed on: an event at or below it is a repeat (in both the log and the channel). */
  last: number;
  turnId: string;
  /** When an event last arrived (for the quiet catch-up). */
  heardAt: number;
  /** The follow has ended (the turn's end, its timeout, or the follower left). */
  closed: boolean;
}

/**
 * A feed that heard nothing for this long reads the log after its last event. Pub/sub delivers at
 * most once: a message sent while the subscription was being moved (a Redis failover, a reconnect)
 * is lost, and without this a lost `end` would hold the client until CHAT_TURN_TIMEOUT_MS.
 */
export const QUIET_CATCH_UP_MS = 1000;

/** Subscribes, then holds the logged events after `afterSeq`; resolves with the unsubscribe. */
async function subscribe(
  deps: FeedDeps,
  turnId: string,
  afterSeq: number,
  state: FeedState,
): Promise<() => Promise<void>> {
  const stop = await deps.turnSubscriber.listen(turnId, (event) =>
    state.pass ? state.pass(event) : state.held.push(event),
  );
  try {
    state.held.push(...(await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, afterSeq)));
  } catch (error) {
    await stop();
    throw error;
  }
  return once(stop);
}

async function follow(
  deps: FeedDeps,
  state: FeedState,
  subscribed: Promise<() => Promise<void>>,
  onEvent: (event: TurnEvent) => void,
  signal: AbortSignal | undefined,
): Promise<TurnEnd> {
  const stop = await subscribed;
  let resolve: (end: TurnEnd) => void = () => {};
  const done = new Promise<TurnEnd>((settle) => {
    resolve = settle;
  });
  // Nothing is passed on once the follow has ended, however it ended: a catch-up still reading
  // must not write to a stream its relay has closed.
  const finish = (end: TurnEnd) => {
    state.closed = true;
    resolve(end);
  };
  const feed = passEvents(deps, state, onEvent, finish);
  const deadline = setTimeout(() => timedOut(state, onEvent, finish), deps.env.CHAT_TURN_TIMEOUT_MS);
  const quiet = setInterval(async () => {
    if (state.closed || Date.now() - state.heardAt < QUIET_CATCH_UP_MS) return;
    // The newest entry first (one read); the log only when it holds something new.
    const newest = await latestLoggedSeq(deps.redis, deps.env.REDIS_PREFIX, state.turnId).catch(() => 0);
    if (newest > state.last) feed.catchUp();
  }, QUIET_CATCH_UP_MS);
  const abort = () => finish("aborted");
  signal?.addEventListener("abort", abort);
  if (signal?.aborted) abort();
  try {
    return await done;
  } finally {
    clearTimeout(deadline);
    clearInterval(quiet);
    signal?.removeEventListener("abort", abort);
    await stop();
  }
}

/**
 * Passes on the held events, then each new one as it comes, in `seq` order without a gap, until
 * the follow ends. An event past a gap waits while the log is read for the missing ones; a gap the
 * log cannot fill (it starts after it: capped, or lost with a failed Redis primary) is skipped. An
 * `end` is never dropped: after a failover the failure clean-up may number it at or below what
 * this follower saw. Returns the catch-up, which the quiet timer calls too.
 */
function passEvents(
  deps: FeedDeps,
  state: FeedState,
  onEvent: (event: TurnEvent) => void,
  finish: (end: TurnEnd) => void,
): { catchUp: () => void } {
  const early = new Map<number, TurnEvent>();
  const deliver = (event: TurnEvent) => {
    if (state.closed) return;
    state.last = Math.max(state.last, event.seq);
    onEvent(event);
    if ("end" in event) finish(event.end);
  };
  const drain = () => {
    for (let next = early.get(state.last + 1); next && !state.closed; next = early.get(state.last + 1)) {
      early.delete(next.seq);
      deliver(next);
    }
  };
  let reading = false;
  let again = false;
  const catchUp = () => {
    if (state.closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void replayTurn(deps.redis, deps.env.REDIS_PREFIX, state.turnId, state.last)
      .then((logged) => {
        for (const event of logged) if (event.seq > state.last) early.set(event.seq, event);
        drain();
        // The log starts past the gap: what it lacked is gone; go on from the earliest event held.
        const firstLogged = logged[0]?.seq ?? Number.POSITIVE_INFINITY;
        if (early.size > 0 && firstLogged > state.last + 1 && !again) {
          const seq = Math.min(...early.keys());
          const event = early.get(seq) as TurnEvent;
          early.delete(seq);
          deliver(event);
          drain();
        }
      })
      .catch(() => {})
      .finally(() => {
        reading = false;
        // Something else went missing while the log was read: read it again.
        if (again || (early.size > 0 && !state.closed)) {
          again = false;
          if (early.size > 0) catchUp();
        }
      });
  };
  state.pass = (event) => {
    state.heardAt = Date.now();
    if (state.closed) return;
    if ("end" in event && event.seq <= state.last) return deliver(event);
    if (event.seq <= state.last) return;
    if (event.seq > state.last + 1) {
      early.set(event.seq, event);
      catchUp();
      return;
    }
    deliver(event);
    drain();
  };
  for (const event of state.held.sort((a, b) => a.seq - b.seq)) state.pass(event);
  state.held.length = 0;
  return { catchUp };
}

/** CHAT_TURN_TIMEOUT_MS passed without an `end`: an error chunk, so a client never hangs. */
function timedOut(state: FeedState, onEvent: (event: TurnEvent) => void, finish: (end: TurnEnd) => void): void {
  const chunk: UIMessageChunk = { type: "error", errorText: "The assistant did not finish in time; please retry." };
  // Closed first: nothing the worker still sends is passed on after this chunk, which takes the next number.
  finish("error");
  onEvent({ seq: state.last + 1, chunk });
}

/** Opens a turn's feed and follows it: for a reader that has nothing to do in between. */
export function followTurn(
  deps: FeedDeps,
  turnId: string,
  options: { afterSeq: number; onEvent: (event: TurnEvent) => void; signal?: AbortSignal },
): Promise<TurnEnd> {
  return openTurnFeed(deps, turnId, options.afterSeq).follow(options.onEvent, options.signal);
}

function once(stop: () => Promise<void>): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= stop();
    return stopped;
  };
}
