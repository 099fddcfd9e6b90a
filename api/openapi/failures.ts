import { ERROR_KINDS, type ErrorKind } from "../../shared/core/errors";
import { policyFor } from "../plugins/access";
import { GUARDED_PATH } from "../plugins/hostGuard";
import type { BodyKind } from "../plugins/requestBodies";

/** What the document needs to know of a route to list the failures it can answer with. */
export interface RouteFacts {
  method: string;
  /** The route's path as registered (`:name` segments). */
  path: string;
  body: BodyKind;
  /** The media types its body may have (none: it takes no body). */
  media: readonly string[];
  /** The route's own failures, declared with its OpenAPI detail (see `failures` in ./declare.ts). */
  declared: readonly ErrorKind[];
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * Every error kind a route can answer with: its own, plus those that follow from the rules every
 * request passes (the access policy, the body limit, validation) and from what can fail anywhere.
 * Adding a failure to a route's declaration, or a rule here, changes the document.
 */
export function failuresOf(route: RouteFacts): ErrorKind[] {
  const kinds = new Set<ErrorKind>(route.declared);
  const policy = policyFor(route.method, route.path);
  if (policy && !policy.anonymous) {
    kinds.add("UNAUTHORIZED");
    if (!policy.uncounted) kinds.add("RATE_LIMITED");
  }
  if (policy?.feature) kinds.add("PLAN_REQUIRED");
  if (policy?.auth === "session" && !SAFE_METHODS.has(route.method)) kinds.add("CSRF_FAILED");
  // DNS-rebinding protection (api/plugins/hostGuard.ts).
  if (route.path === GUARDED_PATH) kinds.add("FORBIDDEN");
  // Every request's query, parameters and body pass the input guard (api/plugins/inputGuard.ts).
  kinds.add("VALIDATION_FAILED");
  // A body of a media type the route does not list (api/plugins/mediaTypes.ts); Elysia parses the
  // rest, and a route without a body never gets as far as a parser.
  if (!SAFE_METHODS.has(route.method) && !route.media.includes("*/*")) kinds.add("UNSUPPORTED_MEDIA_TYPE");
  if (!SAFE_METHODS.has(route.method) && route.body && route.body !== "raw") kinds.add("INVALID_JSON");
  // The body limit holds every request to its path's limit before routing, a GET's body too; the
  // URL and header limits every request (api/plugins/requestLimits.ts).
  kinds.add("PAYLOAD_TOO_LARGE");
  kinds.add("URI_TOO_LONG");
  kinds.add("HEADERS_TOO_LARGE");
  kinds.add("INTERNAL");
  kinds.add("UNAVAILABLE");
  return [...kinds];
}

/** The kinds grouped by HTTP status, in the error table's order within a status. */
export function byStatus(kinds: readonly ErrorKind[]): Map<number, ErrorKind[]> {
  const groups = new Map<number, ErrorKind[]>();
  for (const kind of Object.keys(ERROR_KINDS) as ErrorKind[]) {
    if (!kinds.includes(kind)) continue;
    const status = ERROR_KINDS[kind].status;
    groups.set(status, [...(groups.get(status) ?? []), kind]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}
