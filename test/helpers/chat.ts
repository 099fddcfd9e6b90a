import { expect } from "bun:test";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { TestApp } from "./http";

/**
 * Sends a chat message the way a web client does: the AI SDK's own DefaultChatTransport (what
 * `useChat` uses) over the real app, with our request body. Returns the chunks and the response.
 */
export async function sendWithTransport(
  app: TestApp,
  key: string,
  body: Record<string, unknown>,
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined; headers: Headers }> {
  let headers = new Headers();
  const transport = new DefaultChatTransport<UIMessage>({
    api: "http://localhost/api/v1/health/chat",
    headers: { authorization: `Bearer ${key}` },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await app.handle(new Request(input as string, init));
      headers = response.headers;
      return response;
    }) as typeof fetch,
    prepareSendMessagesRequest: () => ({ body: { ...body, stream: true } }),
  });
  const stream = await transport.sendMessages({
    trigger: "submit-message",
    chatId: "client-side-id",
    messageId: undefined,
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: String(body.message) }] }],
    abortSignal: undefined,
  });
  const chunks: UIMessageChunk[] = [];
  const [forChunks, forMessage] = stream.tee();
  const collecting = (async () => {
    for await (const chunk of forChunks as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  })();
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({ stream: forMessage })) message = state;
  await collecting;
  return { chunks, message, headers };
}

/** Reads SSE events one at a time, so a test can stop (disconnect) in the middle of a stream. */
export function sseEvents(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let comments = 0;
  return {
    /** How many SSE comments (keep-alives) were read so far. */
    comments: () => comments,
    async next(): Promise<{ id?: number; data: string } | undefined> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) {
            if (block.startsWith(": keep-alive")) comments += 1;
            continue;
          }
          const id = /^id: (\d+)$/m.exec(block)?.[1];
          return { ...(id ? { id: Number(id) } : {}), data: /^data: (.*)$/m.exec(block)?.[1] ?? "" };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    /**
     * Reads until `count` keep-alive comments have come, leaving any event for `next`: a stream
     * that is quiet on purpose (a stalled tool) shows it is alive this way.
     */
    async untilKeepAlives(count: number): Promise<void> {
      while (comments < count) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1 && buffer.startsWith(":")) {
          if (buffer.startsWith(": keep-alive")) comments += 1;
          buffer = buffer.slice(end + 2);
          continue;
        }
        if (end !== -1) throw new Error(`An event came before ${count} keep-alives: ${buffer.slice(0, end)}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`The stream ended after ${comments} of ${count} keep-alives`);
        buffer += decoder.decode(value, { stream: true });
      }
    },
    /** Reads until an event's chunk has this type; returns the events read. */
    async until(type: string) {
      const seen: { id?: number; data: string }[] = [];
      for (let event = await this.next(); event; event = await this.next()) {
        seen.push(event);
        if (event.data !== "[DONE]" && (JSON.parse(event.data) as { type: string }).type === type) return seen;
      }
      throw new Error(`The stream ended without a ${type} chunk`);
    },
    async rest() {
      const seen: { id?: number; data: string }[] = [];
      for (let event = await this.next(); event; event = await this.next()) seen.push(event);
      return seen;
    },
    disconnect: () => reader.cancel(),
  };
}

/** A resumed stream: it ends with [DONE], and its numbered events continue right after `lastSeen`, none missing. */
export function expectContinuesAfter(events: { id?: number; data: string }[], lastSeen: number): void {
  expect(events.at(-1)?.data).toBe("[DONE]");
  const ids = events.flatMap((e) => (e.id ? [e.id] : []));
  expect(ids.length).toBeGreaterThan(0);
  expect(ids).toEqual(ids.map((_, i) => lastSeen + 1 + i));
}
