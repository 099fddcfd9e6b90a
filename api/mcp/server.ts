import { type CacheHint, Server, type ServerContext, specTypeSchemas } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Ctx } from "../../shared/context/ctx";
import { complete } from "./completions";
import { checked, invalidParams } from "./errors";
import type { PrebuiltJson } from "./prebuiltJson";
import { getPrompt, PROMPT_LIST } from "./prompts";
import { LEGACY_VERSIONS, NEWEST_LEGACY_VERSION, PROTOCOL_VERSIONS } from "./protocol";
import { listResources } from "./resourceList";
import { RESOURCE_TEMPLATES, readResource } from "./resources";
import { callTool, TOOL_LIST } from "./tools";

export const SERVER_INFO = { name: "io.github.papers-health/mcp", version: "0.3.0" };
/**
 * Nothing here changes while a server runs, and a stateless server could not send the notifications
 * anyway: no listChanged, no subscriptions. `logging`: a 2026-07-28 request may carry a log level
 * (a tool's failure is then logged to it); a 2025 client may set one, which a stateless server
 * acknowledges and forgets.
 */
const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};

const HOUR = 3_600_000;
/**
 * Cache hints of the 2026-07-28 era (2025 results never carry them). The tool, prompt and template
 * lists and the discovery result are the same for every caller of this server version: public, an
 * hour. A caller's resource list holds their own health logs: private, and never reused, since a
 * log may be added at any moment. `resources/read` chooses per resource (resources.ts).
 */
const CACHE_HINTS: Record<string, CacheHint> = {
  "server/discover": { ttlMs: HOUR, cacheScope: "public" },
  "tools/list": { ttlMs: HOUR, cacheScope: "public" },
  "prompts/list": { ttlMs: HOUR, cacheScope: "public" },
  "resources/templates/list": { ttlMs: HOUR, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/**
 * Methods other than tools/call are registered with params schemas that take anything and check
 * the params themselves (`checked`): the SDK turns its own failed parse into -32603, the code this
 * server keeps for bugs, where a malformed request is -32602. For tools/call the SDK's wrapper
 * checks the params first, with -32602.
 */
const ANY = { params: z.looseObject({}).optional(), result: z.looseObject({}) } as never;
type Params = Record<string, unknown> | undefined;

/**
 * A retried 2026-07-28 request answers our questions with an object of response objects. The SDK
 * drops entries that are not (and reads `null` or a number as no answers): a tool would then ask
 * again as if nothing came back, so a malformed or empty `inputResponses` is -32602 instead.
 */
function checkInputResponses(request: ServerContext["mcpReq"]): void {
  const { inputResponses, droppedInputResponseKeys } = request;
  if (inputResponses === undefined) return;
  if (droppedInputResponseKeys?.length || Object.keys(inputResponses).length === 0) {
    throw invalidParams(
      "Invalid tools/call request: inputResponses must map each input request's key to its response object.",
      droppedInputResponseKeys?.length ? { keys: droppedInputResponseKeys } : undefined,
    );
  }
}

/** Who a request's server answers for (the caller admission found), and where its tools may put prebuilt JSON. */
export interface McpCaller {
  ctx: Ctx;
  prebuilt: PrebuiltJson;
}

/** One server for one request: every handler answers for the caller admission found. */
export function buildServer({ ctx, prebuilt }: McpCaller, era: "modern" | "legacy"): Server {
  const modern = era === "modern";
  const server = new Server(SERVER_INFO, {
    capabilities: CAPABILITIES,
    supportedProtocolVersions: [...PROTOCOL_VERSIONS],
    cacheHints: CACHE_HINTS,
    // 2025 requests are served statelessly: the SDK cannot send them a server-to-client request.
    inputRequired: { legacyShim: false },
  });
  const on = (method: string, answer: (params: Params, request: ServerContext) => unknown) =>
    server.setRequestHandler(
      method,
      ANY,
      (params: unknown, request: ServerContext) => answer(params as Params, request) as never,
    );
  // The SDK has checked the params against its tools/call schema; the arguments are read as sent,
  // since its parsed copy drops a `__proto__` key, which a tool refuses like any REST body does.
  on("tools/call", (params, request) => {
    checkInputResponses(request.mcpReq);
    const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
    return callTool(ctx, name, args ?? {}, request.mcpReq, { modern, prebuilt });
  });
  // The four lists: each checks its paging params; only the caller's resources page.
  const paged = (method: string, answer: (cursor: string | undefined) => unknown) =>
    on(method, (params) => answer(checked(method, specTypeSchemas.PaginatedRequestParams, params ?? {}).cursor));
  paged("tools/list", () => ({ tools: TOOL_LIST }));
  paged("resources/templates/list", () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  paged("resources/list", (cursor) => listResources(ctx, cursor));
  paged("prompts/list", () => ({ prompts: PROMPT_LIST }));
  on("resources/read", (params) => {
    const { uri } = checked("resources/read", specTypeSchemas.ReadResourceRequestParams, params);
    return readResource(ctx, uri, modern);
  });
  on("prompts/get", (params) => {
    const { name, arguments: parsed } = checked("prompts/get", specTypeSchemas.GetPromptRequestParams, params);
    // The arguments as sent: zod's record drops a `__proto__` key, which the prompt refuses like a tool.
    const sent = params?.arguments as Record<string, string> | undefined;
    return getPrompt(ctx, name, sent ?? parsed);
  });
  on("completion/complete", (params) =>
    complete(ctx, checked("completion/complete", specTypeSchemas.CompleteRequestParams, params)),
  );
  if (!modern) {
    // 2025 only. The SDK's own initialize turns malformed params into -32603 with its parser's dump.
    on("initialize", (params) => {
      const { protocolVersion } = checked("initialize", specTypeSchemas.InitializeRequestParams, params);
      return {
        protocolVersion: LEGACY_VERSIONS.has(protocolVersion) ? protocolVersion : NEWEST_LEGACY_VERSION,
        capabilities: CAPABILITIES,
        serverInfo: SERVER_INFO,
      };
    });
    // The 2026 era carries the level per request (the SDK refuses this method there). Stateless, so
    // a valid level is acknowledged and forgotten; an unknown one is -32602.
    on("logging/setLevel", (params) => {
      checked("logging/setLevel", specTypeSchemas.SetLevelRequestParams, params);
      return {};
    });
  }
  return server;
}
