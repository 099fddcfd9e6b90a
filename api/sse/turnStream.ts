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

/** One relayed stream: where it writes, what waits to be written, and how it ends. */
interface Relay {
  controller: ReadableStreamDefaultController<Uint8Array>;
  aborter: AbortController;
  /** Text written since the last flush, sent as one chunk. */
  pending: string;
  flush: () => void;
  /** Ends the stream now, without `[DONE]` (see closeTurnStreams). */
  close: () => void;
  keepAlive: ReturnType<typeof setInterval> | undefined;
  /** In the active-streams gauge: from the relay's start to its first end (the turn's, or the client's). */
  counted: boolean;
  /** The body has ended: nothing more may be enqueued (a closed controller throws). */
  ended: boolean;
}

const INTERRUPTED = `data: ${JSON.stringify({ type: "error", errorText: "The stream was interrupted; please retry." })}\n\n`;

/**
 * The turn as an SSE body: `id: <seq>` (for Last-Event-ID) and `data: <chunk JSON>` per event,
 * `: keep-alive` comments while nothing happens, `data: [DONE]` at the end. Disconnecting stops
 * the relay, not the turn.
 */
function turnEventStream(deps: Pick<Deps, "env" | "log">, feed: TurnFeed): ReadableStream<Uint8Array> {
  let relay: Relay | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      relay = openRelay(controller, deps.env.CHAT_KEEPALIVE_MS);
      relayFeed(deps, feed, relay);
    },
    cancel() {
      if (!relay) return;
      stopRelay(relay);
      relay.aborter.abort();
    },
  });
}

function openRelay(controller: ReadableStreamDefaultController<Uint8Array>, keepAliveMs: number): Relay {
  const relay: Relay = {
    controller,
    aborter: new AbortController(),
    pending: "",
    flush: () => flush(relay),
    close: () => closeNow(relay),
    keepAlive: undefined,
    counted: true,
    ended: false,
  };
  activeStreams.inc();
  relay.keepAlive = setInterval(() => write(relay, ": keep-alive\n\n"), keepAliveMs);
  relaying.add(relay.close);
  // Bun sends the response headers with the first body bytes: without this comment, a client
  // re-attaching to a turn that is waiting on a tool gets no headers until the first keep-alive.
  // Enqueued at once (not batched with later writes), so the headers leave with the Response.
  controller.enqueue(encoder.encode(": open\n\n"));
  return relay;
}

/** Writes each chunk of the turn as it comes; `[DONE]` once the turn has ended. */
function relayFeed(deps: Pick<Deps, "log">, feed: TurnFeed, relay: Relay): void {
  void feed
    .follow((event) => {
      if ("chunk" in event) write(relay, `id: ${event.seq}\ndata: ${JSON.stringify(event.chunk)}\n\n`);
    }, relay.aborter.signal)
    .catch((error) => {
      deps.log.error("chat stream relay failed", { turnId: feed.turnId, error });
      write(relay, INTERRUPTED);
    })
    .finally(() => {
      stopRelay(relay);
      if (relay.aborter.signal.aborted) return;
      write(relay, "data: [DONE]\n\n");
      flush(relay);
      relay.ended = true;
      relay.controller.close();
    });
}

/**
 * Events that arrive together (a worker sends a burst of chunks as one pipeline, and Redis delivers
 * them in one read) go out as one write: a write per chunk holds the later chunks of each burst
 * back when many streams are open.
 */
function write(relay: Relay, text: string): void {
  if (relay.ended || relay.aborter.signal.aborted) return;
  if (!relay.pending) queueMicrotask(relay.flush);
  relay.pending += text;
}

function flush(relay: Relay): void {
  const text = relay.pending;
  relay.pending = "";
  if (text && !relay.ended && !relay.aborter.signal.aborted) relay.controller.enqueue(encoder.encode(text));
}

function closeNow(relay: Relay): void {
  if (relay.ended || relay.aborter.signal.aborted) return;
  flush(relay);
  relay.aborter.abort();
  relay.ended = true;
  relay.controller.close();
}

/** The relay's first end: no longer closed on shutdown, kept alive or counted. */
function stopRelay(relay: Relay): void {
  relaying.delete(relay.close);
  clearInterval(relay.keepAlive);
  if (relay.counted) activeStreams.dec();
  relay.counted = false;
}
