import { Elysia, type ValidationError } from "elysia";
import { AppError, type ErrorDetail, errorBody } from "../../shared/core/errors";
import type { Logger } from "../../shared/core/log";
import { stateOf } from "../requestState";
import { logRequest } from "./requestContext";

/**
 * The one error handler: every failure leaves as the documented body with `X-Request-Id`.
 * Elysia's own errors are translated first (validation → 400, not its default 422).
 */
export function errorHandler(log: Logger) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, (context) => {
    const { error, code, request, set } = context;
    const state = stateOf(request);
    const appError = toAppError(error, code, request);
    if (appError.status >= 500 && appError.kind !== "UNAVAILABLE") {
      log.error("request failed", { requestId: state.requestId, kind: appError.kind, error: appError.cause ?? error });
    } else if (appError.kind === "UNAVAILABLE") {
      log.warn("dependency unavailable", {
        requestId: state.requestId,
        message: appError.message,
        error: appError.cause,
      });
    }
    logRequest(log, request, appError.status, "route" in context ? (context.route as string | undefined) : undefined);
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      ...(set.headers as Record<string, string>),
      ...appError.headers,
      "x-request-id": state.requestId,
    };
    return new Response(JSON.stringify(errorBody(appError, state.requestId)), { status: appError.status, headers });
  });
}

/** The AppError a failure is answered as (the metrics plugin reads its status). */
export function toAppError(error: unknown, code: string | number, request?: Request): AppError {
  if (error instanceof AppError) return error;
  switch (code) {
    case "VALIDATION":
      // An answer that fails its own response schema is our bug, not the caller's request.
      // Logged without the answer itself (Elysia's message quotes it whole: account and health data).
      if ((error as ValidationError).type === "response") {
        const first = (error as ValidationError).valueError;
        const cause = new Error(`The response does not match its schema at ${first?.path || "/"}: ${first?.message}`);
        return new AppError("INTERNAL", "Internal error", { cause });
      }
      return new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
        details: validationDetails(error as ValidationError, request),
      });
    case "PARSE":
      return new AppError(
        "INVALID_JSON",
        "The body could not be parsed; send valid JSON with Content-Type: application/json.",
      );
    case "NOT_FOUND":
      return new AppError("ROUTE_NOT_FOUND", "No endpoint matches this method and path.");
    case "INVALID_COOKIE_SIGNATURE":
      return new AppError("BAD_REQUEST", "Invalid cookie signature.");
    default:
      return new AppError("INTERNAL", "Internal error", { cause: error });
  }
}

const MAX_DETAILS = 20;

function validationDetails(error: ValidationError, request?: Request): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const coerced = error.type === "property" ? coercedParameter(error, request) : undefined;
  for (const issue of error.all) {
    const path = coerced?.path ?? ("path" in issue ? String(issue.path || "/") : "/");
    const message = ("summary" in issue && issue.summary) || issue.message;
    const key = `${path} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ in: coerced?.in ?? (error.type as ErrorDetail["in"]), path, message: String(message) });
    if (details.length === MAX_DETAILS) break;
  }
  return details;
}

/**
 * Elysia's number coercion (an integer in the query string) throws a "property" error that holds
 * the value but not the parameter (`limit=0` came out as `{in: "property", path: "/"}`); the query
 * string names it.
 */
function coercedParameter(error: ValidationError, request?: Request): Pick<ErrorDetail, "in" | "path"> {
  const value = error.value;
  for (const [name, raw] of request ? new URL(request.url).searchParams : []) {
    if (raw === String(value) || (raw.trim() !== "" && Number(raw) === Number(value))) {
      return { in: "query", path: `/${name}` };
    }
  }
  return { in: "body", path: "/" };
}
