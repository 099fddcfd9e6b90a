import { Elysia } from "elysia";
import type { Logger } from "../../shared/log";
import { initState, stateOf } from "../requestState";
import { pathOf } from "./access";

/** Headers every response carries; API responses hold account data, so nothing is cached by default. */
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/**
 * Starts each request: assigns the request id, sets the security headers and ends with one
 * structured log line (never the key, never the query string, which can hold health terms).
 */
export function requestContext(log: Logger) {
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set }) => {
      const state = initState(request);
      Object.assign(set.headers, SECURITY_HEADERS);
      set.headers["x-request-id"] = state.requestId;
    })
    .onAfterResponse({ as: "global" }, (context) => {
      const { request, set } = context;
      const state = stateOf(request);
      const response = (context as { response?: unknown }).response;
      const status = state.errorStatus ?? (response instanceof Response ? response.status : Number(set.status ?? 200));
      log.info("request", {
        requestId: state.requestId,
        method: request.method,
        route: ("route" in context && context.route) || pathOf(request.url),
        status,
        durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
        accountId: state.principal?.accountId,
      });
    });
}
