import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { pathOf } from "./access";

/** The spec's exact methods for the MCP and discovery endpoints (section 4.7). */
const MCP_METHODS = "GET, POST, DELETE, OPTIONS";
/** REST resources also take PATCH (health logs, chats). */
const REST_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";

function isMcpPath(path: string): boolean {
  return path === "/api/mcp" || path === "/api/mcp/server-card" || path.startsWith("/.well-known/mcp");
}

const ALLOWED_HEADERS = "Content-Type, Authorization, x-api-key";

/**
 * CORS for the whole API: the spec's values on the MCP and discovery paths, the same policy plus
 * PATCH elsewhere. The plugin's method list is static, so it is switched off there and the
 * preflight's methods are set here, before the plugin answers the preflight with these headers.
 * So are the allowed request headers: the plugin would send them on every response, where no
 * browser reads them (every header costs each response about 0.2 µs of the API's CPU).
 * No credentials: keys travel in headers, never cookies.
 */
export function corsPolicy() {
  return new Elysia({ name: "cors-policy" })
    .onRequest(({ request, set }) => {
      if (request.method !== "OPTIONS") return;
      set.headers["access-control-allow-methods"] = isMcpPath(pathOf(request.url)) ? MCP_METHODS : REST_METHODS;
      set.headers["access-control-allow-headers"] = ALLOWED_HEADERS;
    })
    .use(
      cors({
        origin: "*",
        methods: false,
        // `false` (as for methods) leaves the header to the hook above; the plugin's type omits it.
        allowedHeaders: false as unknown as string,
        exposeHeaders: ["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
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
