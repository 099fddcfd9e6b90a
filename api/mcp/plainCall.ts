import {
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Transport,
} from "@modelcontextprotocol/server";
import { LEGACY_VERSIONS } from "./protocol";

/**
 * The 2025 era's everyday request, served without the SDK's HTTP transport: one JSON-RPC request
 * that the streamable HTTP transport would take exactly as it is, to a server built for it alone.
 *
 * Why: the transport checks each message against the SDK's schemas several times over (the
 * message, "is it initialize", "is it a request", and each answer "is it a result, is it an
 * error") and keeps per-stream maps for batches and SSE; for a tool call that is more CPU than the
 * tool. The server (the SDK's `Server`: method dispatch, params checks, result encoding) is the
 * same. Such a request names no 2026-07-28 envelope or version, so it is the 2025 era without
 * asking the SDK's classifier. Anything that is not plainly such a request (a batch,
 * `initialize`, a notification, a `_meta`, another key, headers the transport would refuse) goes
 * the SDK's way, which answers it as it always has, errors included.
 */
export function isPlainLegacyCall(request: Request, body: unknown): body is JSONRPCRequest {
  const accept = request.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (!isJsonContentType(request.headers.get("content-type"))) return false;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !LEGACY_VERSIONS.has(version)) return false;
  if (!isPlainObject(body) || body.jsonrpc !== "2.0") return false;
  if (Object.keys(body).some((key) => !MESSAGE_KEYS.has(key))) return false;
  if (typeof body.method !== "string" || body.method === "initialize") return false;
  if (!(typeof body.id === "string" || Number.isSafeInteger(body.id))) return false;
  return body.params === undefined || (isPlainObject(body.params) && !("_meta" in body.params));
}

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A transport for one request: it hands the message to the connected server and resolves with
 * the server's answer to it. Like the SDK's transport in JSON mode, it drops notifications (a JSON
 * answer carries only the response).
 */
export class OneCallTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private readonly answer = Promise.withResolvers<JSONRPCMessage>();
  private id: JSONRPCRequest["id"] | undefined;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && message.id === this.id && ("result" in message || "error" in message)) {
      this.answer.resolve(message);
    }
  }

  async close(): Promise<void> {
    // Only a call waits on the answer: without one, nothing would hear the rejection.
    if (this.id !== undefined) this.answer.reject(new Error("The MCP server closed before it answered"));
    this.onclose?.();
  }

  /** The server's answer to `message` (the server must be connected). */
  call(message: JSONRPCRequest, request: Request): Promise<JSONRPCMessage> {
    this.id = message.id;
    this.onmessage?.(message, { request });
    return this.answer.promise;
  }
}
