import type { createApp } from "../../api/app";
import { createAccount } from "../../shared/auth/accounts";
import type { Deps } from "../../shared/context/deps";
import type { PlanId } from "../../shared/core/plans";
import { checkResponse } from "./contract";

export type TestApp = ReturnType<typeof createApp>;

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
  plan: PlanId;
}

export async function createTestAccount(deps: Deps, plan: PlanId): Promise<TestAccount> {
  const created = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
    { plan },
  );
  return { accountId: created.accountId, apiKey: created.apiKey, keyId: created.keyId, plan };
}

export interface Call {
  method?: string;
  key?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

/** Sends a request through the app and holds its response against /openapi.json (./contract.ts). */
export async function handleChecked(app: Pick<TestApp, "handle">, request: Request): Promise<Response> {
  const { method, url } = request;
  const response = await app.handle(request);
  await checkResponse(app, () => app.handle(new Request("http://localhost/openapi.json")), { method, url }, response);
  return response;
}

/** Sends one request through the real app in-process. */
export async function call(app: TestApp, path: string, options: Call = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("authorization", `Bearer ${options.key}`);
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("content-type", "application/json");
  }
  return handleChecked(app, new Request(`http://localhost${path}`, { method: options.method ?? "GET", headers, body }));
}

/** A JSON-RPC call to the MCP endpoint with the headers the streamable HTTP transport requires. */
export function mcpCall(app: TestApp, message: unknown, headers: Record<string, string>): Promise<Response> {
  return call(app, "/api/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers },
    rawBody: JSON.stringify(message),
  });
}

/**
 * A 2026-07-28 request as a client of that revision sends it: the protocol version and client
 * capabilities in `params._meta` (plus `meta`, e.g. a log level), mirrored in the MCP headers.
 */
export function modernMcpCall(
  app: TestApp,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  meta: Record<string, unknown> = {},
): Promise<Response> {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "raw-modern", version: "1.0.0" },
    ...meta,
  };
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return mcpCall(
    app,
    { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: envelope } },
    {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name && /^(tools\/call|prompts\/get|resources\/read)$/.test(method) ? { "mcp-name": name } : {}),
      ...headers,
    },
  );
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Asserts the documented error body and returns it. */
export async function errorOf(response: Response) {
  const body = await json<{ error: { code: string; message: string; requestId: string; details?: unknown[] } }>(
    response,
  );
  if (!body.error || typeof body.error.code !== "string" || typeof body.error.message !== "string") {
    throw new Error(`Not the documented error body: ${JSON.stringify(body)}`);
  }
  if (body.error.requestId !== response.headers.get("x-request-id")) {
    throw new Error("error.requestId does not match X-Request-Id");
  }
  return body.error;
}
