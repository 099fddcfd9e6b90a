import { Elysia } from "elysia";
import { AppError } from "../../shared/errors";
import { AUDIO_MAX_BYTES } from "../../shared/transcription/audio";
import { pathOf } from "./access";

/** Largest request body of every route not listed below. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Routes that take larger bodies: the file limit plus room for the multipart framing and fields. */
export const ROUTE_BODY_LIMITS: Record<string, number> = {
  "/api/v1/transcribe": AUDIO_MAX_BYTES + 1_048_576,
};

/**
 * Bun's `maxRequestBodySize` is one limit for the whole server, so it is set to the largest route
 * limit and this hook holds every other route to its own, by the declared Content-Length, before
 * the key check (as the server-wide limit did). A body sent without Content-Length (chunked) is
 * bounded by the server-wide limit only.
 */
export const SERVER_MAX_BODY_BYTES = Math.max(DEFAULT_MAX_BODY_BYTES, ...Object.values(ROUTE_BODY_LIMITS));

export function bodyLimit() {
  return new Elysia({ name: "body-limit" }).onRequest(({ request }) => {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (!(declared > DEFAULT_MAX_BODY_BYTES)) return;
    const limit = ROUTE_BODY_LIMITS[pathOf(request.url)] ?? DEFAULT_MAX_BODY_BYTES;
    if (declared > limit) {
      throw new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than this endpoint's ${limit} bytes.`);
    }
  });
}
