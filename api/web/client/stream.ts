/**
 * Reads the AI SDK UI message stream (SSE: `id: n` and `data: {json}` blocks, comments for
 * keep-alive, `data: [DONE]` at the end) chunk by chunk, as the bytes arrive.
 */

export type UIChunk = { type: string; [field: string]: unknown };

export async function* readUIChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<UIChunk> {
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
        const data = block
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        if (data === "[DONE]") return;
        yield JSON.parse(data) as UIChunk;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
