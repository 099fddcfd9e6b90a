import { Elysia } from "elysia";
import { pathOf } from "./access";

/**
 * Which origins' pages may read our responses: every one. Keys travel in headers, never in cookies,
 * and the website's session cookie is for its own same-origin pages, so no credentials are allowed
 * and a page elsewhere can only use a key it already holds.
 */
export const CORS_ORIGINS = "*";

/** Whether a request's `Origin` is one the CORS policy lets read responses (the MCP host guard asks). */
export function corsAllowsOrigin(origin: string, allowed: "*" | readonly string[] = CORS_ORIGINS): boolean {
  return allowed === "*" || allowed.includes(origin);
}

/** The spec's exact methods for the MCP and discovery endpoints (section 4.7). */
const MCP_METHODS = "GET, POST, DELETE, OPTIONS";
/** REST resources also take PATCH (health logs, chats) and PUT (the signed upload URL). */
const REST_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/**
 * Request headers a page may send. The spec's three first, as written; MCP clients add the
 * protocol version and, resuming a stream, Last-Event-ID; 2026-07-28 clients also name the method
 * and its target (Mcp-Method, Mcp-Name). REST clients may resume a chat stream (Last-Event-ID) and
 * pass their own X-Request-Id to correlate logs.
 */
const MCP_ALLOWED_HEADERS =
  "Content-Type, Authorization, x-api-key, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";
/**
 * 2026-07-28 mirrors a tool's annotated arguments into `Mcp-Param-<Name>` headers, whose names no
 * fixed list can hold (a CORS list takes no prefixes): a preflight asking for such headers gets
 * them allowed by name, and nothing else it asks for.
 */
function withParamHeaders(requested: string | null): string {
  const params = (requested ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => /^mcp-param-[a-z0-9-]{1,64}$/i.test(name));
  return params.length ? `${MCP_ALLOWED_HEADERS}, ${params.join(", ")}` : MCP_ALLOWED_HEADERS;
}
const REST_ALLOWED_HEADERS = "Content-Type, Authorization, x-api-key, Last-Event-ID, X-Request-Id";

/**
 * Response headers a page may read beyond the safelisted ones: the request id, the chat id of a new
 * chat's stream, the hourly limit and when to retry, the 401 challenge, an export's file name.
 */
const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-Chat-Id",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "WWW-Authenticate",
  "Content-Disposition",
].join(", ");

/** How long a browser may cache a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = "600";

/**
 * The CORS headers of every answer. With a wildcard origin nothing varies, so no `Vary` is sent
 * (`Vary: *` would make every response uncacheable, ETags on discovery cards included), and no
 * credentials are allowed.
 */
export const CORS_HEADERS = {
  "access-control-allow-origin": CORS_ORIGINS,
  "access-control-expose-headers": EXPOSED_HEADERS,
} as const;

/** The MCP endpoint and the discovery documents (`/.well-known/…`, `/api/mcp/server-card`). */
function isMcpPath(path: string): boolean {
  return path === "/api/mcp" || path.startsWith("/api/mcp/") || path.startsWith("/.well-known/");
}

/**
 * CORS for the whole API: the spec's values on the MCP and discovery paths, the REST policy
 * elsewhere. Every answer carries CORS_HEADERS (the request context sets them with the security
 * headers); this hook answers preflights, with 204 and the policy's whole lists whatever the
 * preflight asks (a browser refuses what is not in them). The allowed request headers go on
 * preflights only: on every response no browser reads them, and each header costs every response
 * CPU. Our own hook rather than @elysiajs/cors: the plugin set `Vary: *` on every request (which
 * then had to be deleted, leaving the header record slow to copy), its hook was awaited on every
 * request, and a preflight without Access-Control-Request-Headers got the literal `undefined`.
 */
export function corsPolicy() {
  return new Elysia({ name: "cors-policy" }).onRequest(({ request, set }) => {
    if (request.method !== "OPTIONS") return;
    const mcp = isMcpPath(pathOf(request.url));
    set.headers["access-control-allow-methods"] = mcp ? MCP_METHODS : REST_METHODS;
    set.headers["access-control-allow-headers"] = mcp
      ? withParamHeaders(request.headers.get("access-control-request-headers"))
      : REST_ALLOWED_HEADERS;
    set.headers["access-control-max-age"] = PREFLIGHT_MAX_AGE;
    // Elysia adds `set.headers` to an early answer.
    return new Response(null, { status: 204 });
  });
}
