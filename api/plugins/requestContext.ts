import { Elysia } from "elysia";
import { withoutKeys } from "../../shared/core/keys";
import type { Logger } from "../../shared/core/log";
import { initState, stateOf } from "../requestState";
import { type HookContext, hookPath, pathOf } from "./access";

/** A JSON answer loads nothing, runs nothing and may not be framed, even if a browser renders it. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * /docs is Scalar's page from its CDN (api/routes/openapi.ts): its script, its inline styles, its
 * fonts, and the document (and "try it" requests) from here.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src https://cdn.jsdelivr.net",
  "style-src 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.scalar.com",
  "font-src data: https://cdn.jsdelivr.net https://fonts.scalar.com",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/**
 * Headers every response carries; API responses hold account data, so nothing is cached by
 * default. Routes that serve HTML (/docs, the website's pages) replace the CSP with their own.
 * CORP only limits no-cors loads (`<script>`, `<img>` from another site); CORS fetches are unaffected.
 */
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "content-security-policy": API_CSP,
  "cross-origin-resource-policy": "same-origin",
} as const;

/** A year; sent only when the service is reached over HTTPS (browsers ignore it over plain HTTP). */
const HSTS = "max-age=31536000";

/** The one access-log line of a request (never the key, never the query string: it can hold health terms). */
export function logRequest(log: Logger, request: Request, status: number, route?: string): void {
  const state = stateOf(request);
  log.info("request", {
    requestId: state.requestId,
    method: request.method,
    // An unmatched path is logged as sent, minus anything shaped like a key.
    route: route || withoutKeys(pathOf(request.url)),
    status,
    durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
    accountId: state.principal?.accountId,
  });
}

/**
 * Starts each request (request id and security headers; HSTS when the public URL is HTTPS)
 * and writes its access-log line: here for handled requests and CORS preflights, in the error
 * handler for failures. The fixed headers are Elysia's app headers, which it copies into each
 * request's header record in one step, before any hook. Not `onAfterResponse`: Elysia runs that
 * through a `setImmediate` and an async closure per request, about 10 % of the API's CPU on cheap
 * routes.
 */
export function requestContext(log: Logger, options: { https?: boolean } = {}) {
  const fixed = {
    ...SECURITY_HEADERS,
    ...(options.https ? { "strict-transport-security": HSTS } : {}),
  };
  return new Elysia({ name: "request-context" })
    .headers(fixed)
    .onRequest((context) => {
      const { request, set } = context;
      const state = initState(request);
      const path = hookPath((context as HookContext).path, request);
      if (path === "/docs") set.headers["content-security-policy"] = DOCS_CSP;
      set.headers["x-request-id"] = state.requestId;
      // Preflights are answered by the CORS hook right after this one, always with 204.
      if (request.method === "OPTIONS") logRequest(log, request, 204);
    })
    .onAfterHandle({ as: "global" }, ({ request, set, route, response }) => {
      const status = response instanceof Response ? response.status : Number(set.status ?? 200);
      logRequest(log, request, status, route);
    });
}
