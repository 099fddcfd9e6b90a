import http from "node:http";
import { AppError } from "../../shared/core/errors";

/** The longest URL (path and query, as sent) the service reads: longer is 414 `URI_TOO_LONG`. */
export const MAX_URL_LENGTH = 8_192;

/** The most header bytes (names, values and their framing) the service reads: more is 431 `HEADERS_TOO_LARGE`. */
export const MAX_HEADER_BYTES = 16_384;

/**
 * Bun's own limit on a request's line and headers, raised from its 16 KiB default so the two limits
 * above are ours to answer, with the error body: Bun refuses what exceeds its limit itself, with a
 * bare 431 and no body (a 64 KB query string was one). Past this, it still does. Bun holds a
 * request's headers in memory before any of our code runs, so this stays a small multiple of the
 * default rather than the body limit.
 */
export const SERVER_HEADER_LIMIT = 262_144;

/**
 * Bun reads node:http's `maxHeaderSize` for every server the process starts (the setting behind
 * `--max-http-header-size`), so it is set here, once, before any server listens.
 */
export function raiseServerHeaderLimit(): void {
  const settings = http as unknown as { maxHeaderSize: number };
  if (settings.maxHeaderSize < SERVER_HEADER_LIMIT) settings.maxHeaderSize = SERVER_HEADER_LIMIT;
}

/** The length of the request target (path and query) of a request URL. */
function targetLength(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1 ? 1 : url.length - start;
}

/** The bytes of the header block as sent, near enough: each `name: value\r\n` (about 0.5 µs a request). */
function headerBytes(headers: Headers): number {
  let total = 0;
  headers.forEach((value, name) => {
    total += name.length + value.length + 4;
  });
  return total;
}

/**
 * Refuses a request whose URL or headers are larger than the service reads, before anything else
 * reads them (the key included: a 414 needs no credential, like a 413).
 */
export function refuseOversizedRequest(request: Request): void {
  const length = targetLength(request.url);
  if (length > MAX_URL_LENGTH) {
    throw new AppError(
      "URI_TOO_LONG",
      `The URL has ${length} characters; this service reads at most ${MAX_URL_LENGTH}. Send long input in a body.`,
    );
  }
  const bytes = headerBytes(request.headers);
  if (bytes > MAX_HEADER_BYTES) {
    throw new AppError(
      "HEADERS_TOO_LARGE",
      `The headers take ${bytes} bytes; this service reads at most ${MAX_HEADER_BYTES}.`,
    );
  }
}
