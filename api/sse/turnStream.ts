import type { TurnFeed } from "../../shared/chat/turn/follow";
import type { Deps } from "../../shared/context/deps";
import { chatStreamsActive } from "../../shared/core/serviceMetrics";

const encoder = new TextEncoder();
const activeStreams = chatStreamsActive.labels();

/**
 * Response headers of the UI message stream protocol (the AI SDK's `useChat` reads these). The
 * stream holds health data: no-store (not the SDK's no-cache), like every other API response.
 */
const UI_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store, no-transform",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** Closers of the streams this process is relaying, for `closeTurnStreams`. */
const relaying = new Set<() => void>();

/**
 * On shutdown: ends every relayed stream now, without `[DONE]` (the turn is not over), so the
 * server can stop (an open stream would hold it until the hard exit) and each client resumes on
 * another API process with Last-Event-ID. The turns themselves run on in the workers.
 */
export function closeTurnStreams(): void {
  for (const close of relaying) close();
}

/** A followed turn as the SSE response of the UI message stream protocol, with X-Chat-Id. */
export function turnResponse(deps: Pick<Deps, "env" | "log">, turn: { chatId: string; feed: TurnFeed }): Response {
  return new Response(turnEventStream(deps, turn.feed), {
    headers: { ...UI_STREAM_HEADERS, "x-chat-id": turn.chatId },
  });
}

/**
 * The turn as an SSE body: `id: <seq>` (for Last-Event-ID) and `data: <chunk JSON>` per event,
 * `: keep-alive` comments while nothing happens, `data: [DONE]` at the end. Disconnecting stops
 * the relay, not the turn.
 */
function turnEventStream(deps: Pick<Deps, "env" | "log">, feed: TurnFeed): ReadableStream<Uint8Array> {
  const aborter = new AbortController();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let close: () => void = () => {};
  // Counted from the relay's start to its first end: the turn's end, or the client going away.
  let open = false;
  const closed = () => {
    if (open) activeStreams.dec();
    open = false;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      open = true;
      activeStreams.inc();
      // Events that arrive together (a worker sends a burst of chunks as one pipeline, and Redis
      // delivers them in one read) go out as one write: a write per chunk holds the later chunks
      // of each burst back when many streams are open.
      let pending = "";
      const flush = () => {
        const text = pending;
        pending = "";
        if (text && !aborter.signal.aborted) controller.enqueue(encoder.encode(text));
      };
      const write = (text: string) => {
        if (aborter.signal.aborted) return;
        if (!pending) queueMicrotask(flush);
        pending += text;
      };
      keepAlive = setInterval(() => write(": keep-alive\n\n"), deps.env.CHAT_KEEPALIVE_MS);
      close = () => {
        if (aborter.signal.aborted) return;
        flush();
        aborter.abort();
        controller.close();
      };
      relaying.add(close);
      // Bun sends the response headers with the first body bytes: without this comment, a client
      // re-attaching to a turn that is waiting on a tool gets no headers until the first keep-alive.
      write(": open\n\n");
      void feed
        .follow((event) => {
          if ("chunk" in event) write(`id: ${event.seq}\ndata: ${JSON.stringify(event.chunk)}\n\n`);
        }, aborter.signal)
        .catch((error) => {
          deps.log.error("chat stream relay failed", { turnId: feed.turnId, error });
          write(
            `data: ${JSON.stringify({ type: "error", errorText: "The stream was interrupted; please retry." })}\n\n`,
          );
        })
        .finally(() => {
          relaying.delete(close);
          clearInterval(keepAlive);
          closed();
          if (aborter.signal.aborted) return;
          write("data: [DONE]\n\n");
          flush();
          controller.close();
        });
    },
    cancel() {
      relaying.delete(close);
      clearInterval(keepAlive);
      closed();
      aborter.abort();
    },
  });
}
