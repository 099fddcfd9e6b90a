import { Elysia } from "elysia";
import type { Deps } from "../../shared/deps";
import { AppError } from "../../shared/errors";
import { callerOf, stateOf } from "../requestState";
import { handleMcpRequest } from "./server";

const NOT_ALLOWED = () => {
  throw new AppError("METHOD_NOT_ALLOWED", "The MCP endpoint is stateless: send JSON-RPC with POST.", {
    headers: { allow: "POST, OPTIONS" },
  });
};

export function mcpRoutes(deps: Deps) {
  return new Elysia({ name: "routes/mcp" })
    .post(
      "/api/mcp",
      ({ request }) => {
        const { principal, rate } = callerOf(request);
        return handleMcpRequest(request, { deps, principal, rate, requestId: stateOf(request).requestId }, deps.log);
      },
      {
        // The MCP transport reads the body itself.
        parse: "none",
        detail: {
          tags: ["MCP"],
          summary: "MCP JSON-RPC endpoint (streamable HTTP, stateless, JSON responses)",
          security: [{ bearer: [] }, { apiKey: [] }],
        },
      },
    )
    .get("/api/mcp", NOT_ALLOWED, { detail: { hide: true } })
    .delete("/api/mcp", NOT_ALLOWED, { detail: { hide: true } });
}
