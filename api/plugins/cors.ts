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

/**
 * CORS for the whole API: the spec's values on the MCP and discovery paths, the same policy plus
 * PATCH elsewhere. The plugin's method list is static, so it is switched off there and the
 * preflight's methods are set here, before the plugin answers the preflight with these headers.
 * No credentials: keys travel in headers, never cookies.
 */
export function corsPolicy() {
  return new Elysia({ name: "cors-policy" })
    .onRequest(({ request, set }) => {
      if (request.method !== "OPTIONS") return;
      set.headers["access-control-allow-methods"] = isMcpPath(pathOf(request.url)) ? MCP_METHODS : REST_METHODS;
    })
    .use(
      cors({
        origin: "*",
        methods: false,
        allowedHeaders: ["Content-Type", "Authorization", "x-api-key"],
        exposeHeaders: ["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
        credentials: false,
        maxAge: 600,
      }),
    );
}
