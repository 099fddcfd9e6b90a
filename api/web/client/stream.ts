/**
 * Reads the AI SDK UI message stream (SSE: `id: n` and `data: {json}` blocks, comments for
 * keep-alive, `data: [DONE]` at the end) chunk by chunk, as the bytes arrive.
 */

export type UIChunk = { type: string; [field: string]: unknown };

/** Where a reader got to: the last event id (to resume after it) and whether `[DONE]` arrived. */
export interface StreamProgress {
  lastId?: string;
  done: boolean;
}

export async function* readUIChunks(
  body: ReadableStream<Uint8Array>,
  progress: StreamProgress = { done: false },
): AsyncGenerator<UIChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = done ? "" : (blocks.pop() ?? "");
      for (const block of blocks) {
        const lines = block.split(/\r?\n/);
        const data = lines
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        if (data === "[DONE]") {
          progress.done = true;
          return;
        }
        const chunk = JSON.parse(data) as UIChunk;
        const id = lines
          .find((line) => line.startsWith("id:"))
          ?.slice(3)
          .trim();
        if (id) progress.lastId = id;
        yield chunk;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
