import type { UIMessageChunk } from "ai";
import { replayTurn, type TurnEvent } from "../../shared/chat/turnEvents";
import type { Deps } from "../../shared/deps";

type StreamDeps = Pick<Deps, "redis" | "env" | "turnSubscriber" | "log">;

/**
 * Follows one turn's events in order, exactly once each: it subscribes first, then runs
 * `afterSubscribe` (enqueueing a new turn), then replays the capped log after `afterSeq`, then
 * passes live events on, skipping any already delivered. Ends at the turn's `end` event, or at
 * the deadline with an error chunk, so a client never hangs.
 */
export async function followTurn(
  deps: StreamDeps,
  turnId: string,
  options: {
    afterSeq: number;
    afterSubscribe?: () => Promise<void>;
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
  const stop = await deps.turnSubscriber.listen(turnId, (event) => (replaying ? pending.push(event) : deliver(event)));
  const deadline = setTimeout(() => {
    const chunk: UIMessageChunk = { type: "error", errorText: "The assistant did not finish in time; please retry." };
    options.onEvent({ seq: last + 1, chunk });
    finish("error");
  }, deps.env.CHAT_TURN_TIMEOUT_MS);
  const abort = () => finish("aborted");
  options.signal?.addEventListener("abort", abort);
  try {
    await options.afterSubscribe?.();
    for (const event of await replayTurn(deps.redis, deps.env.REDIS_PREFIX, turnId, options.afterSeq)) deliver(event);
    replaying = false;
    for (const event of pending.sort((a, b) => a.seq - b.seq)) deliver(event);
    return await done;
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener("abort", abort);
    await stop();
  }
}

const encoder = new TextEncoder();

/** Response headers of the UI message stream protocol (the AI SDK's `useChat` reads these). */
export const UI_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/**
 * The turn as an SSE body: `id: <seq>` (for Last-Event-ID) and `data: <chunk JSON>` per event,
 * `: keep-alive` comments while nothing happens, `data: [DONE]` at the end. Disconnecting stops
 * the relay, not the turn.
 */
export function turnEventStream(
  deps: StreamDeps,
  turnId: string,
  options: { afterSeq: number; afterSubscribe?: () => Promise<void> },
): ReadableStream<Uint8Array> {
  const aborter = new AbortController();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!aborter.signal.aborted) controller.enqueue(encoder.encode(text));
      };
      keepAlive = setInterval(() => write(": keep-alive\n\n"), deps.env.CHAT_KEEPALIVE_MS);
      void followTurn(deps, turnId, {
        ...options,
        signal: aborter.signal,
        onEvent: (event) => {
          if ("chunk" in event) write(`id: ${event.seq}\ndata: ${JSON.stringify(event.chunk)}\n\n`);
        },
      })
        .catch((error) => {
          deps.log.error("chat stream relay failed", { turnId, error });
          write(
            `data: ${JSON.stringify({ type: "error", errorText: "The stream was interrupted; please retry." })}\n\n`,
          );
        })
        .finally(() => {
          clearInterval(keepAlive);
          if (aborter.signal.aborted) return;
          write("data: [DONE]\n\n");
          controller.close();
        });
    },
    cancel() {
      clearInterval(keepAlive);
      aborter.abort();
    },
  });
}
