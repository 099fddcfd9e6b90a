import { Elysia } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { serverCard } from "../mcp/card";
import { response } from "../openapi/media";

/** Where the card is served: the two spec paths and the server-card proposal's path. */
export const CARD_PATHS = ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json", "/api/mcp/server-card"];

/**
 * MCP discovery: the server card, without a key. It changes only with a deployment, so it is
 * cacheable for a while and revalidated with a strong ETag (304 when unchanged).
 */
export function discoveryRoutes(deps: Pick<Deps, "env">) {
  const body = JSON.stringify(serverCard(deps.env));
  const etag = `"${Bun.hash(body).toString(16)}"`;
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "public, max-age=300, must-revalidate",
    etag,
  };
  const answer = ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) => {
    Object.assign(set.headers, headers);
    const match = request.headers.get("if-none-match");
    if (match?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(body, { headers });
  };
  const detail = {
    tags: ["MCP"],
    summary: "MCP server card (no key needed)",
    description: "Cacheable; revalidate with If-None-Match (304 when unchanged).",
    responses: {
      200: response(
        "The server card.",
        { "application/json": { schema: { type: "object" } } },
        {
          ETag: { schema: { type: "string" }, description: "A strong validator of the card." },
        },
      ),
      304: { description: "Not modified." },
    },
  };
  let app = new Elysia({ name: "routes/discovery" });
  for (const path of CARD_PATHS) app = app.get(path, answer, { detail }) as unknown as typeof app;
  return app;
}
