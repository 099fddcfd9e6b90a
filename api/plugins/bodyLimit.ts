import { Elysia } from "elysia";
import type { Env } from "../../shared/env";
import { AppError } from "../../shared/errors";
import { AUDIO_MAX_BYTES } from "../../shared/transcription/audio";
import { pathOf } from "./access";

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

/**
 * Bun's `maxRequestBodySize` is one limit for the whole server, so it is set to the largest route
 * limit and this hook holds every other route to its own, by the declared Content-Length, before
 * the key check (as the server-wide limit did). A body sent without Content-Length (chunked) is
 * bounded by the server-wide limit only.
 */
export function serverMaxBodyBytes(env: Env): number {
  return Math.max(DEFAULT_MAX_BODY_BYTES, ...routeLimits(env).map((route) => route.limit));
}

export function bodyLimit(env: Env) {
  const limits = routeLimits(env);
  return new Elysia({ name: "body-limit" }).onRequest(({ request }) => {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (!(declared > DEFAULT_MAX_BODY_BYTES)) return;
    const path = pathOf(request.url);
    const limit = limits.find((route) => route.path.test(path))?.limit ?? DEFAULT_MAX_BODY_BYTES;
    if (declared > limit) {
      throw new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint's ${limit} bytes.`);
    }
  });
}
