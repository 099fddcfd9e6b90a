import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Ctx } from "../../shared/context/ctx";
import { buildServer } from "./server";

/**
 * Both protocol eras from one endpoint. The SDK's `createMcpHandler` classifies each POST: a request
 * whose `_meta` carries a protocol version is the 2026-07-28 era, answered by a fresh server per
 * request; anything else is the 2025 era.
 *
 * 2025 requests do not go to the handler's own stateless fallback: that one always answers over SSE,
 * and our 2025 clients get a plain JSON body (smaller, and what they have always had). They go to a
 * stateless transport with JSON responses, over a server built from the same factory.
 */
const modern = createMcpHandler(({ authInfo }) => buildServer(admittedCaller(authInfo), "modern"), {
  legacy: "reject",
  // JSON unless a handler sends a message first (a log line the request asked for): then SSE.
  responseMode: "auto",
});

/** The SDK hands `authInfo` through to the factory untouched: it carries the admitted caller. */
function admittedCaller(authInfo: AuthInfo | undefined): Ctx {
  const ctx = authInfo?.extra?.ctx as Ctx | undefined;
  if (!ctx) throw new Error("MCP request without an admitted caller");
  return ctx;
}

/** Answers one MCP POST for `ctx`; `parsedBody` is the body's JSON when it is JSON. */
export async function handleMcpRequest(request: Request, ctx: Ctx, parsedBody?: unknown): Promise<Response> {
  const legacy = parsedBody === undefined ? await isLegacyRequest(request) : await isLegacyRequest(request, parsedBody);
  if (legacy) return serveLegacy(request, ctx, parsedBody);
  const authInfo: AuthInfo = {
    token: "",
    clientId: ctx.accountId,
    scopes: ctx.scopes ? [...ctx.scopes] : [],
    extra: { ctx },
  };
  return modern.fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
}

/** A 2025 request: a new server and transport for it alone, JSON responses, nothing kept. */
async function serveLegacy(request: Request, ctx: Ctx, parsedBody: unknown): Promise<Response> {
  const server = buildServer(ctx, "legacy");
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await server.close();
  }
}
