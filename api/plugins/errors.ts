import { Elysia, type ValidationError } from "elysia";
import { AppError, type ErrorDetail, errorBody, invalidRequest } from "../../shared/core/errors";
import type { Logger } from "../../shared/core/log";
import { stateOf } from "../requestState";
import { authChallenge, pathOf } from "./access";
import { logRequest } from "./requestContext";
import type { RouteTable } from "./routeTable";

/**
 * The one error handler: every failure leaves as the documented body with `X-Request-Id`.
 * Elysia's own errors are translated first (validation → 400, not its default 422).
 *
 * HTTP semantics kept here, for every path:
 * - 405 with `Allow`: the router found no route for the method, but the path has routes for others
 *   (`routes`, read from the app's own route table). A path no route has stays 404.
 * - 401 before 405: the access policy runs before routing (admission.ts), so on a path that needs
 *   an API key or a website session, a caller without one gets 401 whatever the method, and only a
 *   caller that passed gets 405. Paths without a policy answer 405 to anyone: the public ones (a
 *   share link, the signed upload URL, sign-up and sign-in: their policy covers only the methods
 *   they have, `only` in access.ts), and GET/DELETE/PUT on /api/mcp, whose policy covers only POST.
 *   Checking the method before the key would put a route match on every request's path.
 * - Every 401 carries `WWW-Authenticate` (access.ts `authChallenge`).
 */
export function errorHandler(log: Logger, routes?: RouteTable) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, (context) => {
    const { error, code, request, set } = context;
    const state = stateOf(request);
    const appError = toAppError(error, code, request, routes);
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
    if (appError.status === 401) headers["www-authenticate"] ??= authChallenge(request);
    return new Response(JSON.stringify(errorBody(appError, state.requestId)), { status: appError.status, headers });
  });
}

/** The router found no route: 405 with `Allow` when the path has routes for other methods, else 404. */
export function routeMiss(request: Request | undefined, routes: RouteTable | undefined): AppError {
  const allow = request && routes?.allowOf(pathOf(request.url));
  if (!request || !allow) return new AppError("ROUTE_NOT_FOUND", "No endpoint matches this method and path.");
  return new AppError("METHOD_NOT_ALLOWED", `This endpoint does not answer ${request.method}; it answers ${allow}.`, {
    headers: { allow },
  });
}

/** The AppError a failure is answered as (the metrics plugin reads its status). */
export function toAppError(error: unknown, code: string | number, request?: Request, routes?: RouteTable): AppError {
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
      return invalidRequest(validationDetails(error as ValidationError, request));
    case "PARSE":
      // A chunked body past its route's limit fails while the route reads it (bodyLimit.ts).
      if ((error as Error).cause instanceof AppError) return (error as Error).cause as AppError;
      return new AppError(
        "INVALID_JSON",
        "The body could not be parsed; send valid JSON with Content-Type: application/json.",
      );
    case "NOT_FOUND":
      return routeMiss(request, routes);
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
    // `Number` is the coercion: " " became 0, "1e1" became 10 (empty values never get here).
    if (raw === String(value) || Number(raw) === Number(value)) {
      return { in: "query", path: `/${name}` };
    }
  }
  return { in: "body", path: "/" };
}
