import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP protocol versions we speak, newest first. The spec names 2025-06-15; real clients send the
 * others. The SDK (1.32) knows all but 2025-06-15, so that one is handled here: `initialize` is
 * answered with the client's version when it is in this list (else the newest), and a later
 * request whose `MCP-Protocol-Version` header is 2025-06-15 reaches the SDK transport as 2025-06-18
 * (the transport only validates the header; the JSON-RPC methods we serve are the same in both).
 */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-06-15", "2025-03-26", "2024-11-05"] as const;
export const NEWEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

const supported = new Set<string>(PROTOCOL_VERSIONS);
const sdkKnows = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

export function negotiateVersion(requested: string): string {
  return supported.has(requested) ? requested : NEWEST_PROTOCOL_VERSION;
}

/**
 * The request as the SDK transport should see it, or a 400 for a version we do not speak (the
 * transport's own answer, as JSON-RPC; also for 2024-10-07, which the SDK would still accept).
 */
export function adaptVersionHeader(request: Request): Request | Response {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || (supported.has(version) && sdkKnows.has(version))) return request;
  if (!supported.has(version)) {
    return Response.json(
      {
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${PROTOCOL_VERSIONS.join(", ")})`,
        },
        id: null,
      },
      { status: 400 },
    );
  }
  const headers = new Headers(request.headers);
  headers.set("mcp-protocol-version", "2025-06-18");
  return new Request(request.url, { method: request.method, headers, body: request.body });
}
