import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "../../shared/errors";
import type { Logger } from "../../shared/log";
import { requireFeature } from "../../shared/services/access";
import { TOOLS, TOOLS_BY_NAME } from "../../shared/tools";
import type { ToolContext } from "../../shared/tools/types";

export const SERVER_INFO = { name: "io.github.papers-health/mcp", version: "0.1.0" };

/** Built once: a fresh server per request must stay cheap. TypeBox schemas are JSON Schema already. */
const TOOL_LIST = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.input as unknown as { type: "object" },
  outputSchema: tool.output as unknown as { type: "object" },
  annotations: { title: tool.title, ...tool.annotations },
}));

/**
 * Answers one MCP POST statelessly: a new server and transport bound to this caller, JSON
 * responses, nothing kept between requests (the transport cannot be reused in stateless mode).
 */
export async function handleMcpRequest(request: Request, ctx: ToolContext, log: Logger): Promise<Response> {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, (call) =>
    callTool(ctx, log, call.params.name, call.params.arguments ?? {}),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/**
 * Failures a model can correct (bad arguments, unknown tool, plan, not found) are `isError`
 * results that say what to change; anything else is a JSON-RPC internal error without internals.
 */
async function callTool(ctx: ToolContext, log: Logger, name: string, args: unknown): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) return failure(`Unknown tool "${name}". Call tools/list for the available tools.`);
  if (!Value.Check(tool.input, args)) {
    const problems = [...Value.Errors(tool.input, args)].slice(0, 10).map((e) => `${e.path || "/"}: ${e.message}`);
    return failure(`Invalid arguments for ${name}: ${problems.join("; ")}`);
  }
  try {
    if (tool.feature) requireFeature(ctx.deps.plans, ctx.principal, tool.feature);
    const output = await tool.run(ctx, args);
    return { content: [{ type: "text", text: tool.render(output) }], structuredContent: output };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return failure(error.message);
    log.error("tool failed", { requestId: ctx.requestId, tool: name, error });
    throw new McpError(ErrorCode.InternalError, `Tool ${name} failed; request id ${ctx.requestId}.`);
  }
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
