import { AppError } from "../../shared/core/errors";
import { pathOf } from "./access";
import type { RouteTable } from "./routeTable";

/** The media type of a Content-Type value: lower case, without parameters; "" when none was sent. */
export function mediaTypeOf(contentType: string | null): string {
  const end = contentType?.indexOf(";") ?? -1;
  return (end === -1 ? (contentType ?? "") : (contentType ?? "").slice(0, end)).trim().toLowerCase();
}

/** Whether `media` is one of `accepted` (which may hold `*\/*` or `type/*`). */
export function acceptsMediaType(accepted: readonly string[], media: string): boolean {
  return accepted.some(
    (type) => type === media || type === "*/*" || (type.endsWith("/*") && media.startsWith(type.slice(0, -1))),
  );
}

/**
 * Whether the request carries a body. Over HTTP/1.1 a body has a Content-Length above 0 or is
 * chunked; a Request built in process (tests) has neither header but has its body.
 */
function carriesBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return length === null ? request.body !== null : Number(length) > 0;
}

const BODILESS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Routes accept a body only in the media types their OpenAPI document lists (requestBodies.ts, the
 * same function the document uses): anything else is 415 `UNSUPPORTED_MEDIA_TYPE` with `Accept`
 * naming what the route takes, and a route that documents no body refuses one. So a browser's
 * cross-site form post (url-encoded, multipart or text/plain: no preflight) never reaches a JSON
 * route, its website mirror included. A route that documents its own 415 (the MCP endpoint, whose
 * clients expect a JSON-RPC error) answers it itself. A request hook, after admission's (401 comes
 * first, as for 405) and before anything parses the body; a path no route has is left to the router
 * (404, 405).
 */
export function refuseUndocumentedMedia(routes: RouteTable) {
  return ({ request }: { request: Request }): void => {
    if (BODILESS.has(request.method) || !carriesBody(request)) return;
    const accepted = routes.mediaTypesOf(request.method, pathOf(request.url));
    if (accepted === undefined) return;
    const sent = mediaTypeOf(request.headers.get("content-type"));
    if (acceptsMediaType(accepted, sent)) return;
    const as = sent ? `as ${sent}` : "without a Content-Type";
    if (accepted.length === 0) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", `This endpoint takes no request body; one was sent ${as}.`);
    }
    const message = `This endpoint takes ${accepted.join(" or ")}; the body was sent ${as}.`;
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", message, { headers: { accept: accepted.join(", ") } });
  };
}
