import type { UIMessageChunk } from "ai";
import type { Deps } from "../../context/deps";
import { replayTurn, type TurnEvent } from "../../events/turnEvents";

export type StreamDeps = Pick<Deps, "redis" | "env" | "turnSubscriber" | "log">;

/**
 * Follows one turn's events in order, exactly once each: it subscribes, replays the capped log
 * after `afterSeq` and passes live events on, skipping any already delivered; at the same time it
 * runs `start` (storing and queueing a new turn). Whatever the turn publishes before the
 * subscription is live is in the log (a chunk is appended to it before it is published), so
 * starting the turn need not wait for the subscription's round trip. It ends at a failed `start`,
 * at the turn's `end` event, or at the deadline with an error chunk, so a client never hangs.
 */
export async function followTurn(
  deps: StreamDeps,
  turnId: string,
  options: {
    afterSeq: number;
    start?: () => Promise<void>;
    onEvent: (event: TurnEvent) => void;
    signal?: AbortSignal;
  },
): Promise<"ok" | "error" | "aborted"> {
  let last = options.afterSeq;
  let finish: (result: "ok" | "error" | "aborted") => void = () => {};
  const done = new Promise<"ok" | "error" | "aborted">((resolve) => {
    finish = resolve;
  });
  const deliver = (event: TurnEvent) => {
    if (event.seq <= last) return;
    last = event.seq;
    options.onEvent(event);
    if ("end" in event) finish(event.end);
  };
  const pending: TurnEvent[] = [];
  let replaying = true;
  // Subscribed, then the log replayed: from then on every event is delivered as it comes, while
  // `start` may still be running (a fast worker's first chunk need not wait for the enqueue's reply).
  const follow = async () => {
    const stop = await deps.turnSubscriber.listen(turnId, (event) =>
      replaying ? pending.push(event) : deliver(event),
    );
    try {
      for (const event of await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, options.afterSeq)) deliver(event);
    } catch (error) {
      await stop();
      throw error;
    }
    replaying = false;
    for (const event of pending.sort((a, b) => a.seq - b.seq)) deliver(event);
    return stop;
  };
  const [followed, started] = await Promise.allSettled([follow(), options.start?.()]);
  if (followed.status === "rejected") throw followed.reason;
  const stop = followed.value;
  if (started.status === "rejected") {
    await stop();
    throw started.reason;
  }
  const deadline = setTimeout(() => {
    const chunk: UIMessageChunk = { type: "error", errorText: "The assistant did not finish in time; please retry." };
    options.onEvent({ seq: last + 1, chunk });
    finish("error");
  }, deps.env.CHAT_TURN_TIMEOUT_MS);
  const abort = () => finish("aborted");
  options.signal?.addEventListener("abort", abort);
  if (options.signal?.aborted) abort();
  try {
    return await done;
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener("abort", abort);
    await stop();
  }
}
