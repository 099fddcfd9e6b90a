import { cors } from "@elysiajs/cors";
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
];

/** The MCP endpoint and the discovery documents (`/.well-known/…`, `/api/mcp/server-card`). */
function isMcpPath(path: string): boolean {
  return path === "/api/mcp" || path.startsWith("/api/mcp/") || path.startsWith("/.well-known/");
}

/**
 * CORS for the whole API: the spec's values on the MCP and discovery paths, the REST policy
 * elsewhere. The plugin's method list is static, so it is switched off there and the preflight's
 * methods are set here, before the plugin answers the preflight with these headers. So are the
 * allowed request headers: the plugin would send them on every response, where no browser reads
 * them (every header costs each response about 0.2 µs of the API's CPU), and a preflight without
 * Access-Control-Request-Headers would get the literal `undefined`. A preflight gets the policy's
 * whole lists whatever it asks; a browser refuses what is not in them.
 */
export function corsPolicy() {
  return new Elysia({ name: "cors-policy" })
    .onRequest(({ request, set }) => {
      if (request.method !== "OPTIONS") return;
      const mcp = isMcpPath(pathOf(request.url));
      set.headers["access-control-allow-methods"] = mcp ? MCP_METHODS : REST_METHODS;
      set.headers["access-control-allow-headers"] = mcp
        ? withParamHeaders(request.headers.get("access-control-request-headers"))
        : REST_ALLOWED_HEADERS;
    })
    .use(
      cors({
        origin: CORS_ORIGINS,
        methods: false,
        // `false` (as for methods) leaves the header to the hook above; the plugin's type omits it.
        allowedHeaders: false as unknown as string,
        exposeHeaders: EXPOSED_HEADERS,
        credentials: false,
        maxAge: 600,
      }),
    )
    .onRequest(({ set }) => {
      // Runs for actual requests only (the plugin has answered preflights). With a wildcard origin
      // nothing varies, and its `Vary: *` would make every response uncacheable (ETags on
      // discovery cards included).
      delete set.headers.vary;
    });
}
