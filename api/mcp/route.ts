import { type DocumentDecoration, Elysia } from "elysia";
import { contextFor } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import { requestBody, response } from "../openapi/media";
import { callerOf, stateOf } from "../requestState";
import { handleMcpRequest } from "./handler";

const JSON_RPC_MESSAGE = {
  type: "object",
  required: ["jsonrpc"],
  properties: {
    jsonrpc: { const: "2.0" },
    id: {
      type: ["string", "number", "null"],
      description: "As the request sent it: JSON-RPC allows any number, and an error answer echoes a fractional one.",
    },
    method: { type: "string" },
    params: { type: "object" },
    result: { type: "object" },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
    },
  },
};
const jsonRpc = (description: string) => response(description, { "application/json": { schema: JSON_RPC_MESSAGE } });

/**
 * The endpoint's own answers, from the MCP transport: JSON-RPC messages, also for its refusals.
 * The service's rules before it (key, Host, body size, rate limit) answer with the error body.
 */
const MCP_DOC: DocumentDecoration = {
  tags: ["MCP"],
  summary: "MCP JSON-RPC endpoint (streamable HTTP, stateless; protocol 2026-07-28 and the 2025 era)",
  description:
    "Send `Accept: application/json, text/event-stream`. A 2026-07-28 request carries its protocol version and client capabilities in `params._meta` (and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers); a 2025-era client starts with `initialize`, and its later requests may carry `MCP-Protocol-Version`. Answers are JSON, or an SSE stream when a 2026-07-28 request asked for log messages and one is sent before the result. The `Host` must be one this server answers to, and an `Origin` one the CORS policy allows (403 otherwise).",
  requestBody: requestBody({
    "application/json": { schema: { oneOf: [JSON_RPC_MESSAGE, { type: "array", items: JSON_RPC_MESSAGE }] } },
  }),
  responses: {
    200: response(
      "The JSON-RPC response (an array of them for a batch), or an SSE stream of messages ending with it.",
      {
        "application/json": { schema: { oneOf: [JSON_RPC_MESSAGE, { type: "array", items: JSON_RPC_MESSAGE }] } },
        "text/event-stream": { schema: { type: "string" } },
      },
    ),
    202: { description: "Accepted: the body held only notifications or responses." },
    400: jsonRpc(
      "A JSON-RPC error: the body is not JSON-RPC, the protocol version is not supported, a 2026-07-28 request lacks its `_meta` envelope (-32602), its headers disagree with its body (-32020), or it needs a client capability it did not declare (-32021).",
    ),
    404: jsonRpc(
      "A JSON-RPC error (-32601): a 2026-07-28 request for a method that revision removed (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`) or that does not exist.",
    ),
    406: jsonRpc("A JSON-RPC error: `Accept` must list application/json and text/event-stream."),
    415: jsonRpc("A JSON-RPC error: `Content-Type` must be application/json."),
  },
};

/**
 * Reads the body once (the body limit was enforced before routing). JSON goes to the transport
 * already parsed, with the request itself (the SDK reads only its headers then). A body that is not
 * JSON goes as a new request with the same text, for the transport to refuse as it would had it read
 * the body itself. A body that fails mid-read (the client went away) is empty (one past its limit
 * is the limit's 413): the transport's 400 parse error.
 */
async function readMessage(request: Request): Promise<{ forwarded: Request; parsed?: unknown }> {
  const text = await request.text().catch((error) => {
    // A chunked body past the limit (bodyLimit.ts) is a 413, not a parse error.
    if (error instanceof AppError) throw error;
    return "";
  });
  try {
    return { forwarded: request, parsed: JSON.parse(text) as unknown };
  } catch {
    const headers = new Headers(request.headers);
    // The text is re-encoded: invalid UTF-8 became U+FFFD, so the declared length may not fit it.
    headers.delete("content-length");
    return { forwarded: new Request(request.url, { method: request.method, headers, body: text }) };
  }
}

/**
 * POST only: the endpoint is stateless, with no stream to GET and no session to DELETE, so those
 * are 405 `Allow: POST, OPTIONS` like any method a path lacks (api/plugins/errors.ts).
 */
export function mcpRoutes(deps: Deps) {
  return new Elysia({ name: "routes/mcp" }).post(
    "/api/mcp",
    async ({ request }) => {
      const { principal, rate } = callerOf(request);
      const { forwarded, parsed } = await readMessage(request);
      const ctx = contextFor(deps, stateOf(request).requestId, principal, rate);
      return handleMcpRequest(forwarded, ctx, parsed);
    },
    {
      // Read as text by readMessage (not by Elysia): the transport gets the parsed JSON or the text.
      parse: "none",
      detail: MCP_DOC,
    },
  );
}
