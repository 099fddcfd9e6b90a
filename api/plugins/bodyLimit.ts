import type { Env } from "../../shared/core/env";
import { AppError } from "../../shared/core/errors";
import { AUDIO_MAX_BYTES } from "../../shared/transcription/audio";
import { moveState } from "../requestState";

/** Largest request body of every route not listed below. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Routes that take larger bodies. */
function routeLimits(env: Env): { path: RegExp; limit: number }[] {
  return [
    // The audio file plus room for the multipart framing and fields.
    { path: /^\/api\/(v1\/)?transcribe$/, limit: AUDIO_MAX_BYTES + 1_048_576 },
    // The signed upload PUT: the file itself (its exact size is checked against the signed one).
    { path: /^\/api\/v1\/uploads\/[^/]+\/content$/, limit: env.UPLOAD_MAX_BYTES },
  ];
}

/** The body limit of one path. */
export function bodyLimitFor(env: Env, path: string): number {
  return routeLimits(env).find((route) => route.path.test(path))?.limit ?? DEFAULT_MAX_BODY_BYTES;
}

/**
 * Bun's `maxRequestBodySize` is one limit for the whole server, so it is set to the largest route
 * limit and `limitBody` holds every other route to its own before the key check (as the server-wide
 * limit did): by the declared Content-Length when there is one (a body longer than declared is cut
 * there by Bun's HTTP parser), else by reading at most the limit of a chunked body.
 */
export function serverMaxBodyBytes(env: Env): number {
  return Math.max(DEFAULT_MAX_BODY_BYTES, ...routeLimits(env).map((route) => route.limit));
}

const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint's ${limit} bytes.`);

/**
 * Holds a request to its path's body limit (a step of the admission hook). Synchronous unless a
 * chunked body has to be read and counted: then it resolves to the counted copy of the request.
 */
export function limitBody(env: Env, request: Request, path: string): Promise<Request> | undefined {
  const length = request.headers.get("content-length");
  if (length !== null) {
    const declared = Number(length);
    if (!(declared > DEFAULT_MAX_BODY_BYTES)) return;
    const limit = bodyLimitFor(env, path);
    if (declared > limit) throw tooLarge(limit);
    return;
  }
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" || !request.body) return;
  return withCountedBody(request, bodyLimitFor(env, path));
}

/**
 * A body without Content-Length (chunked) is read up to the route's limit, then the request goes on
 * with those bytes and their length; one byte more and reading stops with 413. Routes with large
 * limits (uploads, audio) buffer the whole body anyway.
 */
async function withCountedBody(request: Request, limit: number): Promise<Request> {
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    received += value.length;
    if (received > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const headers = new Headers(request.headers);
  headers.set("content-length", String(received));
  headers.delete("transfer-encoding");
  const counted = new Request(request.url, { method: request.method, headers, body: Buffer.concat(chunks) });
  moveState(request, counted);
  return counted;
}
