import type { Deps } from "../../shared/context/deps";
import type { TurnFeed } from "../../shared/events/turnFeed";
import { chunkJson } from "../../shared/events/turnLog";
import { chatStreamsActive } from "../../shared/metrics/service";

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

/**
 * On shutdown: ends every relayed stream now, without `[DONE]` (the turn is not over), so the
 * server can stop (an open stream would hold it until the hard exit) and each client resumes on
 * another API process with Last-Event-ID. The turns themselves run on in the workers.
 */
export function closeTurnStreams(deps: Pick<Deps, "turnRelays">): void {
  for (const close of deps.turnRelays) close();
}

type RelayDeps = Pick<Deps, "env" | "log" | "turnRelays">;

/** A followed turn as the SSE response of the UI message stream protocol, with X-Chat-Id. */
export function turnResponse(deps: RelayDeps, turn: { chatId: string; feed: TurnFeed }): Response {
  return new Response(turnEventStream(deps, turn.feed), {
    headers: { ...UI_STREAM_HEADERS, "x-chat-id": turn.chatId },
  });
}

/** One relayed stream: where it writes, what waits to be written, and how it ends. */
interface Relay {
  controller: ReadableStreamDefaultController<Uint8Array>;
  feed: TurnFeed;
  /** The client went away, or the process is shutting down: no `[DONE]`. */
  stopped: boolean;
  /** Where the relay is registered for shutdown (Deps.turnRelays). */
  relays: Set<() => void>;
  /** Text written since the last flush, sent as one chunk. */
  pending: string;
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
function turnEventStream(deps: RelayDeps, feed: TurnFeed): ReadableStream<Uint8Array> {
  let relay: Relay | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      relay = openRelay(deps, controller, feed);
      void relayFeed(deps, relay);
    },
    cancel() {
      if (!relay) return;
      stopRelay(relay);
      relay.stopped = true;
      void feed.close();
    },
  });
}

function openRelay(deps: RelayDeps, controller: ReadableStreamDefaultController<Uint8Array>, feed: TurnFeed): Relay {
  const relay: Relay = {
    controller,
    feed,
    stopped: false,
    relays: deps.turnRelays,
    pending: "",
    close: () => closeNow(relay),
    keepAlive: undefined,
    counted: true,
    ended: false,
  };
  activeStreams.inc();
  relay.keepAlive = setInterval(() => {
    write(relay, ": keep-alive\n\n");
    flush(relay);
  }, deps.env.CHAT_KEEPALIVE_MS);
  relay.relays.add(relay.close);
  // Bun sends the response headers with the first body bytes: without this comment, a client
  // re-attaching to a turn that is waiting on a tool gets no headers until the first keep-alive.
  // Enqueued at once (not batched with later writes), so the headers leave with the Response.
  controller.enqueue(encoder.encode(": open\n\n"));
  return relay;
}

/** Writes each chunk of the turn as it comes; `[DONE]` once the turn has ended. */
async function relayFeed(deps: Pick<Deps, "log">, relay: Relay): Promise<void> {
  try {
    for await (const event of relay.feed) {
      // The `end` is last: what is pending goes out with `[DONE]`, in one write.
      if (!("chunk" in event)) continue;
      write(relay, `id: ${event.seq}\ndata: ${chunkJson(event)}\n\n`);
      if (relay.feed.buffered === 0) flush(relay);
    }
  } catch (error) {
    deps.log.error("chat stream relay failed", { turnId: relay.feed.turnId, error });
    write(relay, INTERRUPTED);
    flush(relay);
  }
  stopRelay(relay);
  if (relay.stopped) return;
  write(relay, "data: [DONE]\n\n");
  flush(relay);
  relay.ended = true;
  relay.controller.close();
}

/**
 * Events that arrive together (a worker sends a burst of chunks as one pipeline, and Redis delivers
 * them in one read) go out as one write: a write per chunk holds the later chunks of each burst
 * back when many streams are open. The relay flushes once the feed holds no further event ready
 * (`for await` hands a burst over one event per microtask round, so a flush per microtask would
 * write each event alone, and one deferred to the next event-loop turn measured a longer relay
 * delay under a burst of chats).
 */
function write(relay: Relay, text: string): void {
  if (relay.ended || relay.stopped) return;
  relay.pending += text;
}

function flush(relay: Relay): void {
  const text = relay.pending;
  relay.pending = "";
  if (text && !relay.ended && !relay.stopped) relay.controller.enqueue(encoder.encode(text));
}

function closeNow(relay: Relay): void {
  if (relay.ended || relay.stopped) return;
  flush(relay);
  relay.stopped = true;
  relay.ended = true;
  relay.controller.close();
  void relay.feed.close();
}

/** The relay's first end: no longer closed on shutdown, kept alive or counted. */
function stopRelay(relay: Relay): void {
  relay.relays.delete(relay.close);
  clearInterval(relay.keepAlive);
  if (relay.counted) activeStreams.dec();
  relay.counted = false;
}
