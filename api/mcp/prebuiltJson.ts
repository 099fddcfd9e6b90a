/**
 * JSON that already exists as bytes, spliced into an MCP answer instead of being serialized again.
 *
 * A search page holds its papers as the JSON bytes Meilisearch returned (shared/papers/page.ts), and
 * REST sends them as they are. The SDK serializes a tool result itself, so an MCP search would turn
 * 20–40 KB of papers back into JSON on every call: the largest part of its CPU once the parse is
 * cached. Instead the tool adapter puts a placeholder string where such a value goes, the SDK
 * serializes the small rest, and the route puts the bytes where the placeholder's JSON is.
 *
 * The placeholder carries a random value drawn when the process starts, so no text a client or a
 * paper supplies can contain one.
 */
const NONCE = crypto.randomUUID().replaceAll("-", "");

export class PrebuiltJson {
  /** Each placeholder as the SDK writes it (a JSON string), and the bytes that replace it. */
  private readonly parts = new Map<string, Uint8Array>();

  /** A string to put in the result where `bytes` (one JSON value) belongs. */
  placeholder(bytes: Uint8Array): string {
    const token = `mcp-prebuilt-${NONCE}-${this.parts.size}`;
    this.parts.set(`"${token}"`, bytes);
    return token;
  }

  get empty(): boolean {
    return this.parts.size === 0;
  }

  /**
   * The serialized answer with each placeholder replaced by its bytes, as the pieces to send one
   * after the other (not copied into one buffer: the prebuilt parts are the large ones).
   */
  splice(body: Uint8Array): Uint8Array[] {
    const answer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const found = [...this.parts]
      .map(([quoted, bytes]) => ({ at: answer.indexOf(quoted), length: quoted.length, bytes }))
      .filter((part) => part.at >= 0)
      .sort((a, b) => a.at - b.at);
    const pieces: Uint8Array[] = [];
    let from = 0;
    for (const { at, length, bytes } of found) {
      pieces.push(answer.subarray(from, at), bytes);
      from = at + length;
    }
    pieces.push(answer.subarray(from));
    return pieces;
  }
}
