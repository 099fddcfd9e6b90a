import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Value } from "@sinclair/typebox/value";
import { z } from "zod";
import { missingScope } from "../../shared/auth/scopes";
import type { Ctx } from "../../shared/context/ctx";
import { clipErrorText } from "../../shared/core/errors";
import { TOOLS, TOOLS_BY_NAME } from "../../shared/toolCatalog";
import { runTool, ToolCrash } from "../../shared/tools/run";
import { reservedKey, unstorableText } from "../plugins/inputGuard";
import { complete } from "./completions";
import { checked } from "./errors";
import { SCOPE_META } from "./meta";
import { getPrompt, PROMPT_LIST } from "./prompts";
import { adaptVersionHeader, negotiateVersion } from "./protocol";
import { listResources } from "./resourceList";
import { RESOURCE_TEMPLATES, readResource } from "./resources";

export const SERVER_INFO = { name: "io.github.papers-health/mcp", version: "0.2.0" };
/**
 * Nothing here changes while a server runs, and a stateless server could not send the notifications
 * anyway: no listChanged, no subscriptions. `logging` is declared so clients may set a level (see
 * the handler); a stateless server never sends log messages.
 */
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};
/**
 * One JSON Schema validator for every request's server. Without it each `new Server` builds its
 * own Ajv instance (measured: about half of a tools/list's CPU); the server uses it only to check
 * elicitation answers, which a stateless server never asks for.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/**
 * Handlers are registered with schemas that take any params and check them themselves (`checked`):
 * the protocol layer turns its own failed parse into -32603, the code this server keeps for bugs
 * (`"arguments": ""` or `"protocolVersion": 5` came back as -32603); a malformed request is -32602.
 * For tools/call the SDK's Server does that check (against CallToolRequestSchema).
 */
const anyParams = <M extends string>(method: M) =>
  z.looseObject({ method: z.literal(method), params: z.unknown().optional() });

/** Built once: a fresh server per request must stay cheap. TypeBox schemas are JSON Schema already. */
const TOOL_LIST = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.input as unknown as { type: "object" },
  outputSchema: tool.output as unknown as { type: "object" },
  annotations: { title: tool.title, ...tool.annotations },
  _meta: { [SCOPE_META]: tool.scope },
}));

/**
 * Answers one MCP POST statelessly: a new server and transport bound to this caller, JSON
 * responses, nothing kept between requests (the transport cannot be reused in stateless mode).
 */
export async function handleMcpRequest(
  request: Request,
  ctx: Ctx,
  /** The body already parsed as JSON by the caller (the transport then does not read it). */
  parsedBody?: unknown,
): Promise<Response> {
  const adapted = adaptVersionHeader(request);
  if (adapted instanceof Response) return adapted;
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, jsonSchemaValidator: VALIDATOR });
  // Our own version negotiation (see protocol.ts): the SDK's would answer 2025-06-15 with its newest.
  server.setRequestHandler(anyParams("initialize"), (request) => ({
    protocolVersion: negotiateVersion(checked("initialize", InitializeRequestSchema, request).params.protocolVersion),
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
  }));
  server.setRequestHandler(anyParams("tools/list"), (request) => {
    checked("tools/list", ListToolsRequestSchema, request);
    return { tools: TOOL_LIST };
  });
  server.setRequestHandler(anyParams("tools/call"), (call) => {
    // The SDK's tools/call wrapper has checked the params against CallToolRequestSchema by now.
    const { name, arguments: args } = (call as CallToolRequest).params;
    return callTool(ctx, name, args ?? {});
  });
  registerReadHandlers(server, ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(adapted, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await server.close();
  }
}

/**
 * Resources, prompts, completions and logging: each checks its params with the SDK's schema, then
 * answers for the caller (api/mcp/resources.ts, prompts.ts, completions.ts).
 */
function registerReadHandlers(server: Server, ctx: Ctx): void {
  server.setRequestHandler(anyParams("resources/templates/list"), (request) => {
    checked("resources/templates/list", ListResourceTemplatesRequestSchema, request);
    return { resourceTemplates: RESOURCE_TEMPLATES };
  });
  server.setRequestHandler(anyParams("resources/list"), (request) => {
    const { params } = checked("resources/list", ListResourcesRequestSchema, request);
    return listResources(ctx, params?.cursor);
  });
  server.setRequestHandler(anyParams("resources/read"), (request) =>
    readResource(ctx, checked("resources/read", ReadResourceRequestSchema, request).params.uri),
  );
  server.setRequestHandler(anyParams("prompts/list"), (request) => {
    checked("prompts/list", ListPromptsRequestSchema, request);
    return { prompts: PROMPT_LIST };
  });
  server.setRequestHandler(anyParams("prompts/get"), (request) => {
    const { params } = checked("prompts/get", GetPromptRequestSchema, request);
    // The arguments as sent: zod's record drops a `__proto__` key, which the prompt refuses like a tool.
    const sent = (request.params as { arguments?: Record<string, string> } | undefined)?.arguments;
    return getPrompt(ctx, params.name, sent ?? params.arguments);
  });
  server.setRequestHandler(anyParams("completion/complete"), (request) =>
    complete(ctx, checked("completion/complete", CompleteRequestSchema, request).params),
  );
  // Stateless: there is no session to keep a level for and no log message is ever sent, so a valid
  // level is acknowledged and forgotten; an unknown one is -32602 (the SDK's own handler accepts it).
  server.setRequestHandler(anyParams("logging/setLevel"), (request) => {
    checked("logging/setLevel", SetLevelRequestSchema, request);
    return {};
  });
}

/**
 * Every tool call goes through `runTool` (shared with the chat): a failure the model may read is an
 * `isError` result that says what to change or that a retry may help; anything else is a JSON-RPC
 * internal error without internals (the request id finds it in our logs).
 */
async function callTool(ctx: Ctx, name: string, args: unknown): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) return failure(`Unknown tool "${name}". Call tools/list for the available tools.`);
  // Before the arguments: a token without the scope learns nothing more from this tool.
  const refusal = missingScope(ctx, tool.scope);
  if (refusal) return failure(`${name}: ${refusal}`);
  // As for a REST body: a reserved key first, whatever the schema says; unstorable text once it fits.
  const unstorable = reservedKey(args) ?? (Value.Check(tool.input, args) ? unstorableText(args) : undefined);
  if (unstorable) return failure(`Invalid arguments for ${name}: ${unstorable.path}: ${unstorable.message}`);
  try {
    const result = await runTool(tool, ctx, args);
    if ("failure" in result) return failure(result.failure);
    return { content: [{ type: "text", text: tool.render(result.output) }], structuredContent: result.output };
  } catch (error) {
    if (!(error instanceof ToolCrash)) ctx.log.error("tool failed", { requestId: ctx.requestId, tool: name, error });
    throw new McpError(ErrorCode.InternalError, `Tool ${name} failed; request id ${ctx.requestId}.`);
  }
}

/** Longest isError text: it quotes the arguments (a property name, an id), which can be huge. */
const MAX_FAILURE_TEXT = 2_000;

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text: clipErrorText(text, MAX_FAILURE_TEXT) }], isError: true };
}
