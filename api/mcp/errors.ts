import { ProtocolErrorCode as ErrorCode, ProtocolError, type StandardSchemaV1 } from "@modelcontextprotocol/server";
import { type Asker, authorize, type Need, ScopeRefusal } from "../../shared/auth/authorize";
import type { Ctx } from "../../shared/context/ctx";
import { type AppError, clipErrorText, isExposed } from "../../shared/core/errors";
import { failureMessage } from "../../shared/tools/run";

/**
 * How the methods other than tools/call fail. A tool's failure is a result the model reads
 * (`isError`); resources, prompts and completions have no such result, so a refusal is a JSON-RPC
 * error whose message says what to change, and anything unexpected is -32603 without internals.
 */

/** Longest message: it may quote what the client sent (a URI, an argument). */
const MAX_MESSAGE = 500;

/**
 * A resource that does not exist: -32602 with `data.uri`, as 2026-07-28 requires. The SDK answers
 * the 2025 era the same way (its wire codec maps the 2025 spec's -32002 to -32602 for both eras).
 */
export function resourceNotFound(uri: string, why: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `No resource ${clipErrorText(uri, 100)}: ${why}.`, { uri });
}

export function invalidParams(message: string, data?: Record<string, unknown>): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, clipErrorText(message, MAX_MESSAGE), data);
}

/**
 * The request's params checked by the SDK's own schema. Handlers are registered with schemas that
 * take any params (see server.ts), so a malformed request is -32602 here rather than the protocol
 * layer's -32603.
 */
export function checked<S extends StandardSchemaV1>(
  method: string,
  schema: S,
  params: unknown,
): StandardSchemaV1.InferOutput<S> {
  const result = schema["~standard"].validate(params);
  if (result instanceof Promise) throw new Error(`${method}: the SDK's schema is asynchronous`);
  if (!result.issues) return result.value;
  const problems = result.issues.map((issue) => `/${(issue.path ?? []).map(segment).join("/")}: ${issue.message}`);
  throw invalidParams(`Invalid ${method} request: ${problems.join("; ")}`);
}

const segment = (part: PropertyKey | StandardSchemaV1.PathSegment) =>
  String(typeof part === "object" ? part.key : part);

/**
 * `authorize` for a resource or a prompt. A scope refusal is -32602 naming the scope in `data.scope`
 * (`what`: the prompt or URI asked for); a plan or consent refusal is a service error `answered`
 * maps.
 */
export async function authorized(ctx: Asker, need: Omit<Need, "consent">, what: string): Promise<void> {
  try {
    await authorize(ctx, need);
  } catch (error) {
    if (error instanceof ScopeRefusal) throw invalidParams(`${what}: ${error.message}`, { scope: error.scope });
    throw error;
  }
}

/**
 * Runs a resource, prompt or completion handler. A service error the caller may read (the error
 * table's `expose`) keeps its message: a dependency failing as -32603 (a retry may help), any other
 * refusal (not found, plan, consent, validation) as -32602; `data` adds `kind`, its REST error
 * code, to `data` given here (a resource's URI). Anything else is logged and answered without
 * internals.
 */
export async function answered<T>(
  ctx: Ctx,
  method: string,
  work: () => Promise<T>,
  data: Record<string, unknown> = {},
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (isExposed(error)) throw fromServiceError(error, data);
    ctx.log.error("mcp request failed", { requestId: ctx.requestId, method, error });
    throw new ProtocolError(ErrorCode.InternalError, `${method} failed; request id ${ctx.requestId}.`);
  }
}

function fromServiceError(error: AppError, data: Record<string, unknown>): ProtocolError {
  const code = error.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new ProtocolError(code, clipErrorText(failureMessage(error), MAX_MESSAGE), { ...data, kind: error.kind });
}
