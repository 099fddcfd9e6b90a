import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Ctx } from "../../shared/context/ctx";
import { responseBody } from "../plugins/largeBodies";
import { isPlainLegacyCall, OneCallTransport } from "./plainCall";
import { PrebuiltJson } from "./prebuiltJson";
import { buildServer, type McpCaller } from "./server";

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
function admittedCaller(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new Error("MCP request without an admitted caller");
  return caller;
}

/** Answers one MCP POST for `ctx`; `parsedBody` is the body's JSON when it is JSON. */
export async function handleMcpRequest(request: Request, ctx: Ctx, parsedBody?: unknown): Promise<Response> {
  const caller: McpCaller = { ctx, prebuilt: new PrebuiltJson() };
  if (isPlainLegacyCall(request, parsedBody)) return answerPlainCall(request, caller, parsedBody);
  const legacy =
    parsedBody === undefined
      ? await isLegacyRequest(request)
      : !claimsModernEra(parsedBody) && (await isLegacyRequest(request, parsedBody));
  if (legacy) return finished(await serveLegacy(request, caller, parsedBody), caller.prebuilt);
  const authInfo: AuthInfo = {
    token: "",
    clientId: ctx.accountId,
    scopes: ctx.scopes ? [...ctx.scopes] : [],
    extra: { caller },
  };
  const options = parsedBody === undefined ? { authInfo } : { authInfo, parsedBody };
  return finished(await modern.fetch(request, options), caller.prebuilt);
}

/** The everyday 2025 request, without the SDK's HTTP transport (plainCall.ts). */
async function answerPlainCall(request: Request, caller: McpCaller, message: JSONRPCRequest): Promise<Response> {
  const server = buildServer(caller, "legacy");
  const transport = new OneCallTransport();
  await server.connect(transport);
  try {
    const answer = await transport.call(message, request);
    const bytes = caller.prebuilt.splice(Buffer.from(JSON.stringify(answer)));
    return new Response(responseBody(bytes), { headers: { "content-type": "application/json" } });
  } finally {
    await server.close();
  }
}

/**
 * A single request or notification (not `initialize`) whose `_meta` carries the protocol-version
 * key: the SDK routes every such message to the 2026-07-28 path, however malformed the rest (its
 * `hasEnvelopeClaim`; "a request carrying the envelope claim", as `isLegacyRequest` documents), and
 * the modern handler classifies it again itself. Known here, the first classification is skipped.
 */
function claimsModernEra(body: unknown): boolean {
  if (!isPlainObject(body) || typeof body.method !== "string" || body.method === "initialize") return false;
  if ("result" in body || "error" in body) return false;
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The SDK's answer with any prebuilt JSON spliced in (prebuiltJson.ts). An answer that streams (a
 * 2026-07-28 log line before the result) goes out as it comes, unless it has JSON to splice in: a
 * tool result ends the stream, so it is read whole. Tool results (pages of papers, drug labels)
 * are often large: see largeBodies.ts.
 */
async function finished(response: Response, prebuilt: PrebuiltJson): Promise<Response> {
  const streamed = response.headers.get("content-type")?.startsWith("text/event-stream");
  if (!response.body || (streamed && prebuilt.empty)) return response;
  const body = responseBody(prebuilt.splice(new Uint8Array(await response.arrayBuffer())));
  const headers = new Headers(response.headers);
  // Bun sets the length of a plain body itself; a streamed one has none.
  headers.delete("content-length");
  return new Response(body, { status: response.status, headers });
}

/** A 2025 request: a new server and transport for it alone, JSON responses, nothing kept. */
async function serveLegacy(request: Request, caller: McpCaller, parsedBody: unknown): Promise<Response> {
  const server = buildServer(caller, "legacy");
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
