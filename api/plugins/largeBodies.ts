import { Elysia } from "elysia";

/**
 * Large bodies leave as a one-chunk stream (chunked transfer encoding, no Content-Length).
 *
 * Why: Bun 1.4's server writes a response whose status line, headers and body do not fit its
 * 16 KB cork buffer, and that completes after an `await`, one fragment at a time: every header
 * name, `: `, value and CRLF is a `send()` of its own, about 70 syscalls for our ~15 headers, each
 * waking the client (oven-sh/bun#41341 would cork them; not released). Measured here on a 40 KB
 * body: 359 µs of CPU per response and 2.7k responses/s, against 35 µs and 14.8k/s when the same
 * bytes come from a stream, whose chunks Bun writes corked. Below the threshold a plain body is
 * cheaper (about 5 µs), so only large bodies are streamed; the margin leaves room for the headers.
 */
export const LARGE_BODY_BYTES = 12 * 1024;

/** The body's size in UTF-8 bytes is at least LARGE_BODY_BYTES (a short string is not even measured). */
function isLarge(body: string | Uint8Array): boolean {
  if (typeof body !== "string") return body.byteLength >= LARGE_BODY_BYTES;
  // A UTF-16 unit is at most 3 UTF-8 bytes.
  return body.length * 3 >= LARGE_BODY_BYTES && Buffer.byteLength(body) >= LARGE_BODY_BYTES;
}

function oneChunk(body: string | Uint8Array): ReadableStream<Uint8Array> {
  return chunks([typeof body === "string" ? Buffer.from(body) : body]);
}

/** A stream of the pieces as they are, all enqueued at once: Bun writes them corked. */
function chunks(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) if (piece.byteLength > 0) controller.enqueue(piece);
      controller.close();
    },
  });
}

/**
 * The body to hand to `new Response`: as given when small, a one-chunk stream when large. Pieces
 * (a body assembled from parts) stream as they are when large, so they are never copied together.
 */
export function responseBody(
  body: string | Uint8Array | Uint8Array[],
): string | Uint8Array | ReadableStream<Uint8Array> {
  if (Array.isArray(body)) {
    if (body.length === 1) return responseBody(body[0] as Uint8Array);
    const size = body.reduce((sum, piece) => sum + piece.byteLength, 0);
    return size >= LARGE_BODY_BYTES ? chunks(body) : Buffer.concat(body);
  }
  return isLarge(body) ? oneChunk(body) : body;
}

const JSON_CONTENT_TYPE = "application/json;charset=utf-8";

/** A JSON answer whose body is already serialized (prebuilt pages, for example). */
export function jsonResponse(body: string | Uint8Array): Response {
  return new Response(responseBody(body), { headers: { "content-type": JSON_CONTENT_TYPE } });
}

/**
 * Every route's plain-object answer, after its response validation: serialized here once, and sent
 * as a stream when large. A small one goes back to Elysia as the serialized text with its JSON
 * content type (Elysia builds the Response from it, so nothing is serialized twice and no Response
 * is copied to merge headers in). HEAD requests are left to Elysia (it measures the GET answer for
 * their Content-Length). `responseValue` is the handler's value as validated: the app runs with
 * `normalize: false` and no response schema transforms values; with either, Elysia would validate a
 * cleaned copy that this hook does not see.
 */
export function largeBodies() {
  return new Elysia({ name: "large-bodies" }).mapResponse({ as: "global" }, ({ request, responseValue, set }) => {
    if (responseValue === null || typeof responseValue !== "object" || request.method === "HEAD") return;
    // Plain objects and arrays only: a Response, a stream or Elysia's status wrapper is not JSON to serialize.
    if (!Array.isArray(responseValue) && Object.getPrototypeOf(responseValue) !== Object.prototype) return;
    const json = JSON.stringify(responseValue);
    const type = (set.headers["content-type"] as string | undefined) ?? JSON_CONTENT_TYPE;
    if (!isLarge(json)) {
      set.headers["content-type"] = type;
      // Elysia maps whatever this hook returns as it would a handler's value; its type names only Response.
      return json as unknown as Response;
    }
    return new Response(oneChunk(json), { headers: { "content-type": type } });
  });
}
