import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { missingScope, type Scope } from "../../shared/auth/scopes";
import type { Ctx } from "../../shared/context/ctx";
import { type AppError, clipErrorText, isExposed } from "../../shared/core/errors";
import { failureMessage } from "../../shared/tools/run";

/**
 * How the methods other than tools/call fail. A tool's failure is a result the model reads
 * (`isError`); resources, prompts and completions have no such result, so a refusal is a JSON-RPC
 * error whose message says what to change, and anything unexpected is -32603 without internals.
 */

/** MCP's code for a resource that does not exist (spec: server/resources, error handling). */
export const RESOURCE_NOT_FOUND = -32002;

/** Longest message: it may quote what the client sent (a URI, an argument). */
const MAX_MESSAGE = 500;

export function resourceNotFound(uri: string, why: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `No resource ${clipErrorText(uri, 100)}: ${why}.`, { uri });
}

export function invalidParams(message: string, data?: Record<string, unknown>): McpError {
  return new McpError(ErrorCode.InvalidParams, clipErrorText(message, MAX_MESSAGE), data);
}

/**
 * The request's params checked by the SDK's own schema. Handlers are registered with schemas that
 * take any params (see server.ts), so a malformed request is -32602 here rather than the protocol
 * layer's -32603.
 */
export function checked<T>(method: string, schema: z.ZodType<T>, request: unknown): T {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `/${issue.path.join("/")}: ${issue.message}`);
  throw invalidParams(`Invalid ${method} request: ${problems.join("; ")}`);
}

export function holdsScopes(ctx: Pick<Ctx, "scopes">, scopes: readonly Scope[]): boolean {
  return scopes.every((scope) => missingScope(ctx, scope) === undefined);
}

/** Refuses a caller without one of `scopes` with -32602 naming it (`what`: the prompt or URI asked for). */
export function requireScopes(ctx: Pick<Ctx, "scopes">, scopes: readonly Scope[], what: string): void {
  for (const scope of scopes) {
    const refusal = missingScope(ctx, scope);
    if (refusal) throw invalidParams(`${what}: ${refusal}`, { scope });
  }
}

interface Answering {
  /** The code a NOT_FOUND becomes: -32002 for a resource, -32602 for a prompt's argument. */
  notFound: number;
  data?: Record<string, unknown>;
}

/**
 * Runs a resource, prompt or completion handler. A service error the caller may read (the error
 * table's `expose`) keeps its message: not found as `notFound`, a dependency failing as -32603 (a
 * retry may help), any other refusal (plan, consent, validation) as -32602; `data.kind` is its
 * REST error code. Anything else is logged and answered without internals.
 */
export async function answered<T>(
  ctx: Ctx,
  method: string,
  work: () => Promise<T>,
  options: Answering = { notFound: ErrorCode.InvalidParams },
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (isExposed(error)) throw fromServiceError(error, options);
    ctx.log.error("mcp request failed", { requestId: ctx.requestId, method, error });
    throw new McpError(ErrorCode.InternalError, `${method} failed; request id ${ctx.requestId}.`);
  }
}

function fromServiceError(error: AppError, options: Answering): McpError {
  const code =
    error.kind === "NOT_FOUND"
      ? options.notFound
      : error.status >= 500
        ? ErrorCode.InternalError
        : ErrorCode.InvalidParams;
  return new McpError(code, clipErrorText(failureMessage(error), MAX_MESSAGE), { ...options.data, kind: error.kind });
}
