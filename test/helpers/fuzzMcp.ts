import fc from "fast-check";
import { BAD_UTF8, type FuzzRequest, MALFORMED } from "./fuzz";
import { errorBodyProblem, MAX_ERROR_BYTES } from "./fuzzChecks";
import { deepObject, type Hints, invalid, type JsonSchema, plausible } from "./fuzzValues";

/** Generators and checks for the MCP endpoint (README "MCP server" → "Errors"). */

export interface McpTool {
  name: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean };
}

const HEADERS = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
};

const requestId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, 1.5, -1, 2 ** 64, {}, [], true, "x".repeat(10_000)),
);

const METHODS = fc.oneof(
  fc.constantFrom(
    "tools/list",
    "tools/call",
    "initialize",
    "ping",
    "resources/list",
    "resources/read",
    "prompts/list",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "unknown/method",
    "",
    "rpc.discover",
    "TOOLS/LIST",
    "tools/list ",
    "x".repeat(10_000),
  ),
  fc.string(),
  fc.integer(),
);

function callParams(toolNames: string[]) {
  return fc.record(
    {
      name: fc.oneof(
        fc.constantFrom(...toolNames),
        fc.constantFrom("no_such_tool", "", "../search_papers", "x".repeat(10_000), "__proto__"),
        fc.string(),
        fc.integer(),
      ),
      arguments: fc.oneof(
        fc.constantFrom(undefined, null, "x", [], 0),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
      ),
      _meta: fc.constantFrom(undefined, { progressToken: 1 }, "x"),
    },
    { requiredKeys: [] },
  );
}

const INITIALIZE_PARAMS = fc.record({
  protocolVersion: fc.constantFrom("2025-06-15", "2025-11-25", "2024-11-05", "1999-01-01", "", 5),
  capabilities: fc.constantFrom({}, null, "x"),
  clientInfo: fc.constantFrom({ name: "fuzz", version: "1" }, {}, null),
});

/** Params that fit the method more often than not, so the request gets past the envelope checks. */
function methodAndParams(toolNames: string[]) {
  const anyParams = fc.constantFrom(undefined, {}, [], "x", null, deepObject(2_000), { cursor: 5 }, { _meta: "x" });
  return fc.oneof(
    fc.tuple(
      fc.constant("tools/call"),
      fc.oneof({ weight: 3, arbitrary: callParams(toolNames) }, { weight: 1, arbitrary: anyParams }),
    ),
    fc.tuple(
      fc.constant("initialize"),
      fc.oneof({ weight: 3, arbitrary: INITIALIZE_PARAMS }, { weight: 1, arbitrary: anyParams }),
    ),
    fc.tuple(
      fc.constantFrom("tools/list", "ping"),
      fc.oneof(fc.constant(undefined), fc.record({ cursor: fc.jsonValue() }), anyParams),
    ),
    fc.tuple(METHODS, fc.oneof(callParams(toolNames), INITIALIZE_PARAMS, anyParams)),
  );
}

function messageArb(toolNames: string[]) {
  return fc
    .tuple(
      fc.constantFrom("2.0", "2.0", "2.0", "2.0", "1.0", 2, undefined),
      fc.oneof(
        { weight: 4, arbitrary: fc.nat() },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: requestId },
      ),
      methodAndParams(toolNames),
    )
    .map(([jsonrpc, id, [method, params]]) => ({ jsonrpc, id, method, params }));
}

/** The same call many times in one POST (batches were dropped from MCP in 2025-06-18). */
function batchOf(count: number, method: string) {
  return JSON.stringify(Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id, method })));
}

/** Whole POSTs to /api/mcp: messages, batches, broken bodies, and odd Accept / Content-Type / version headers. */
export function mcpMessageArb(toolNames: string[]): fc.Arbitrary<FuzzRequest> {
  const message = messageArb(toolNames);
  const body = fc.oneof(
    { weight: 6, arbitrary: message.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.array(message, { maxLength: 20 }).map((values) => JSON.stringify(values)) },
    { weight: 1, arbitrary: fc.constantFrom(batchOf(500, "ping"), batchOf(50, "tools/list"), "[]", "[[]]", "[1,2,3]") },
    { weight: 1, arbitrary: MALFORMED },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: BAD_UTF8 },
  );
  const headers = fc.record({
    accept: fc.oneof(
      { weight: 6, arbitrary: fc.constant(HEADERS.accept) },
      { weight: 1, arbitrary: fc.constantFrom("application/json", "text/event-stream", "*/*", "", "text/html") },
    ),
    "content-type": fc.oneof(
      { weight: 6, arbitrary: fc.constant(HEADERS["content-type"]) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("text/plain", "", "application/json; charset=utf-16", "multipart/form-data"),
      },
    ),
    "mcp-protocol-version": fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom("2025-06-15", "2025-11-25", "1999-01-01", "", "x".repeat(1_000)) },
    ),
  });
  return fc.tuple(body, headers).map(([sent, chosen]) => ({
    method: "POST",
    target: "/api/mcp",
    headers: Object.fromEntries(Object.entries(chosen).filter(([, value]) => value)) as Record<string, string>,
    body: sent,
  }));
}

/** Arguments for one tool: schema-shaped with odd values (real ids from `hints` often), broken, or huge. */
export function toolArgumentsArb(tool: McpTool, hints: Hints): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: plausible(tool.inputSchema, hints) },
    { weight: 3, arbitrary: invalid(tool.inputSchema, hints) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Object.fromEntries(
          Object.keys(tool.inputSchema.properties ?? { q: {} }).map((name) => [name, "h".repeat(200_000)]),
        ),
        { huge: "h".repeat(900_000) },
        deepObject(3_000),
      ),
    },
  );
}

interface RpcMessage {
  jsonrpc?: unknown;
  result?: { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: unknown };
  error?: { code?: unknown; message?: unknown };
}

/**
 * The MCP endpoint's contract: never a 5xx; an HTTP error is the REST error body (401/405/413/429)
 * or a JSON-RPC error (transport refusals); a 200 holds JSON-RPC responses, each a result or an
 * error, never -32603 (an unexpected failure inside a tool); an `isError` result says why in text
 * and has no structuredContent. `rejected`: nothing in the POST was accepted; `text`: the body.
 */
export async function checkMcpResponse(
  response: Response,
  described: string,
): Promise<{ rejected: boolean; text: string }> {
  const text = await response.text();
  const fail = (problem: string): never => {
    throw new Error(`${problem}: ${response.status} ${text.slice(0, 300)}\n  for ${described}`);
  };
  if (response.status >= 500) fail("server error");
  if (response.status === 202) return { rejected: false, text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail("body is not JSON");
  }
  if (response.status >= 400) {
    const rpc = body as RpcMessage;
    if (rpc.jsonrpc === "2.0" && rpc.error) checkRpcError(rpc, fail);
    else {
      const problem = errorBodyProblem(response, text);
      if (problem) fail(problem);
    }
    return { rejected: true, text };
  }
  const messages = (Array.isArray(body) ? body : [body]) as RpcMessage[];
  let accepted = false;
  for (const message of messages) {
    if (message.jsonrpc !== "2.0" || (!message.result && !message.error)) fail("not a JSON-RPC response");
    if (message.error) checkRpcError(message, fail);
    else if (message.result?.isError) {
      const said = message.result.content?.map((part) => part.text ?? "").join("") ?? "";
      if (said.trim().length === 0) fail("isError result without text");
      if (said.length > MAX_ERROR_BYTES) fail(`isError text of ${said.length} characters`);
      if (message.result.structuredContent !== undefined) fail("isError result with structuredContent");
    } else accepted = true;
  }
  return { rejected: !accepted, text };
}

/**
 * JSON-RPC 2.0: an empty batch is an Invalid Request, answered with one error with id null (the
 * SDK's transport alone answered 202, as for a batch of notifications). Refusals of the headers
 * (406, 415, a version we do not speak) come first, as for any body.
 */
export function checkEmptyBatch(sent: FuzzRequest, status: number, text: string, described: string): void {
  if (typeof sent.body !== "string" || sent.body.trim() !== "[]" || status === 406 || status === 415) return;
  const body = JSON.parse(text) as { jsonrpc?: string; id?: unknown; error?: { code?: number; message?: string } };
  if (body.error?.message?.includes("protocol version")) return;
  if (status !== 400 || body.jsonrpc !== "2.0" || body.id !== null || body.error?.code !== -32600) {
    throw new Error(`an empty batch is not answered 400 -32600 with id null: ${status} ${text}\n  for ${described}`);
  }
}

function checkRpcError(message: RpcMessage, fail: (problem: string) => never): void {
  const { code, message: said } = message.error ?? {};
  if (typeof code !== "number" || typeof said !== "string") fail("JSON-RPC error without code and message");
  if (code === -32603) fail("internal JSON-RPC error (-32603)");
  if (typeof said === "string" && said.length > MAX_ERROR_BYTES)
    fail(`JSON-RPC error message of ${said.length} characters`);
}
