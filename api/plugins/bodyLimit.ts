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
 * limit and `limitBody` holds every other route to its own, after the caller is known (admission.ts)
 * and before anything is read: by the declared Content-Length when there is one (a body longer than
 * declared is cut there by Bun's HTTP parser), else by counting a chunked body as the route reads it.
 */
export function serverMaxBodyBytes(env: Env): number {
  return Math.max(DEFAULT_MAX_BODY_BYTES, ...routeLimits(env).map((route) => route.limit));
}

/** A 413 closes the connection: the rest of an oversize body is never read or drained. */
const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint's ${limit} bytes.`, {
    headers: { connection: "close" },
  });

/**
 * Holds a request to its path's body limit (a step of the admission hook). Returns the request to
 * go on with: itself, or for a chunked body a copy whose body is counted as it streams.
 */
export function limitBody(env: Env, request: Request, path: string): Request {
  const length = request.headers.get("content-length");
  if (length !== null) {
    const declared = Number(length);
    if (!(declared > DEFAULT_MAX_BODY_BYTES)) return request;
    const limit = bodyLimitFor(env, path);
    if (declared > limit) throw tooLarge(limit);
    return request;
  }
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" || !request.body) {
    return request;
  }
  return withCountedBody(request, bodyLimitFor(env, path));
}

/**
 * A body without Content-Length (chunked) reaches the route as a stream that counts its bytes: one
 * byte past the route's limit and reading fails with 413 (the route's parser hands that error on;
 * errors.ts answers it). Nothing is buffered here, so a refused caller costs no memory.
 */
function withCountedBody(request: Request, limit: number): Request {
  let received = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > limit) controller.error(tooLarge(limit));
      else controller.enqueue(chunk);
    },
  });
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  const counted = new Request(request.url, {
    method: request.method,
    headers,
    body: (request.body as ReadableStream<Uint8Array>).pipeThrough(counter),
    duplex: "half",
  } as RequestInit);
  moveState(request, counted);
  return counted;
}
