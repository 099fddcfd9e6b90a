import { withoutKeys } from "./keys";

/**
 * The one error class and the one table: each kind's HTTP status, and whether its message may be
 * shown (`expose`). Services throw `AppError(kind, …)`; the API's error handler turns it into
 * `{"error": {code, message, requestId, details?}}` with the status below, the tool adapters (MCP,
 * chat) into a message the model reads. A message that may not be shown is replaced by a generic
 * one, so internals never leak; the request id finds the cause in the logs. The field is `kind`, not `code`, because
 * Elysia reads an error's own `code` first and would treat ours as one of its own.
 */
export const ERROR_KINDS = {
  VALIDATION_FAILED: { status: 400, expose: true, summary: "The request is malformed: see `details` for each field." },
  INVALID_JSON: { status: 400, expose: true, summary: "The body is not valid JSON." },
  BAD_REQUEST: { status: 400, expose: true, summary: "The request cannot be processed as sent." },
  UNAUTHORIZED: { status: 401, expose: true, summary: "The API key is missing, malformed, unknown or revoked." },
  PLAN_REQUIRED: { status: 403, expose: true, summary: "The account's plan does not include this feature." },
  CONSENT_REQUIRED: {
    status: 403,
    expose: true,
    summary: "Health data needs consent: save the profile with consentGiven: true first.",
  },
  MODEL_NOT_AVAILABLE: { status: 403, expose: true, summary: "The plan cannot use the requested model." },
  WRONG_CHAT_SURFACE: {
    status: 400,
    expose: true,
    summary: "The chat belongs to another surface (e.g. a research chat sent to health chat).",
  },
  CSRF_FAILED: {
    status: 403,
    expose: true,
    summary: "A website request without the session's x-csrf-token header, or a sign-in from another origin.",
  },
  FORBIDDEN: { status: 403, expose: true, summary: "The caller may not do this." },
  NOT_FOUND: { status: 404, expose: true, summary: "The resource does not exist or belongs to another account." },
  ROUTE_NOT_FOUND: { status: 404, expose: true, summary: "No endpoint has this method and path." },
  METHOD_NOT_ALLOWED: { status: 405, expose: true, summary: "The endpoint does not support this method." },
  CONFLICT: { status: 409, expose: true, summary: "The request conflicts with the resource's current state." },
  RECORD_OTHER_PATIENT: {
    status: 409,
    expose: true,
    summary:
      "The health record names another patient than earlier imports (both named in the message and details); nothing was stored. Send `proceed: true` to import it anyway.",
  },
  CONTEXT_TOO_LARGE: {
    status: 413,
    expose: true,
    summary: "History, message and attachments exceed the model's context window.",
  },
  PAYLOAD_TOO_LARGE: { status: 413, expose: true, summary: "The body or a part of it is too large." },
  URI_TOO_LONG: { status: 414, expose: true, summary: "The URL (path and query) is longer than 8,192 characters." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, expose: true, summary: "The Content-Type is not accepted here." },
  NO_LAB_RESULTS: {
    status: 422,
    expose: true,
    summary: "No lab results could be read from the file; the message says why.",
  },
  RECORD_NOT_READABLE: {
    status: 422,
    expose: true,
    summary: "The file is not a FHIR R4 Bundle or a C-CDA document that can be read; the message says why.",
  },
  RATE_LIMITED: {
    status: 429,
    expose: true,
    summary: "The hourly request limit is used up; retry after `Retry-After` seconds.",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    expose: true,
    summary: "The request's headers take more than 16,384 bytes.",
  },
  INTERNAL: { status: 500, expose: false, summary: "An unexpected error; the request id identifies it in our logs." },
  ASSISTANT_FAILED: { status: 502, expose: true, summary: "The assistant (model provider or the turn) failed; retry." },
  UPSTREAM_FAILED: {
    status: 502,
    expose: true,
    summary: "An upstream service (model provider, reference source) failed.",
  },
  UNAVAILABLE: {
    status: 503,
    expose: true,
    summary: "A dependency is unavailable; retry after `Retry-After` seconds.",
  },
} as const satisfies Record<string, { status: number; expose: boolean; summary: string }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** One problem with one part of a request: `in` names the part, `path` is a JSON pointer into it. */
export interface ErrorDetail {
  in: "body" | "query" | "params" | "headers" | "cookie";
  path: string;
  message: string;
}

export interface AppErrorOptions {
  cause?: unknown;
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKind, message: string, options: AppErrorOptions = {}) {
    // Messages may repeat what the client sent; a key pasted there is not repeated (nor logged).
    super(withoutKeys(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.kind = kind;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }
}

export interface ErrorBody {
  error: { code: ErrorKind; message: string; requestId: string; details?: ErrorDetail[] };
}

/** Longest message, detail path or detail message in an error body. */
const MAX_ERROR_TEXT = 300;

/**
 * Messages and details quote the request (an id, a property name); clipped, so a 300 KB id or
 * property name is not sent back twice over (fuzzing found 600 KB error bodies).
 */
export function clipErrorText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  // Never between the two halves of a surrogate pair (an emoji): a lone half is not text.
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/** Whether the error's own message may reach the caller (the table's `expose`). */
export function isExposed(error: unknown): error is AppError {
  return error instanceof AppError && ERROR_KINDS[error.kind].expose;
}

/** The documented body for an error; a message that may not be shown becomes the generic one. */
export function errorBody(error: AppError, requestId: string): ErrorBody {
  const message = isExposed(error) ? clipErrorText(error.message) : ERROR_KINDS.INTERNAL.summary;
  const body: ErrorBody = { error: { code: error.kind, message, requestId } };
  if (error.details && error.details.length > 0) {
    body.error.details = error.details.map((detail) => ({
      ...detail,
      path: clipErrorText(detail.path),
      message: clipErrorText(detail.message),
    }));
  }
  return body;
}

/** A request refused field by field: 400 `VALIDATION_FAILED` with a detail per problem. */
export function invalidRequest(details: ErrorDetail[]): AppError {
  return new AppError("VALIDATION_FAILED", "The request is invalid: see details.", { details });
}
