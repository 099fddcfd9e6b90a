import { ERROR_KINDS } from "../../shared/core/errors";
import type { Sql } from "../../shared/db/sql";
import { describeRequest, type FuzzRequest } from "./fuzz";

/**
 * What the fuzz suite holds every answer to (the documented error body, sizes), the stored rows it
 * compares, and the per-operation count it prints.
 */

const DETAIL_PARTS = new Set(["body", "query", "params", "headers", "cookie"]);

/**
 * The properties every answer must have: no 5xx, and a 4xx carries the documented error body (a
 * known code with its status, a message, the request id) and, for validation, useful details.
 * Returns the body's text.
 */
export async function checkResponse(response: Response, sent: FuzzRequest): Promise<string> {
  const text = await response.text();
  const bodyProblem = sent.target.startsWith("/oauth/")
    ? oauthErrorProblem
    : SHARE_PAGE.test(sent.target)
      ? sharePageProblem
      : errorBodyProblem;
  const problem =
    response.status >= 500 ? "server error" : response.status >= 400 ? bodyProblem(response, text) : undefined;
  if (problem) throw new Error(`${problem}: ${response.status} ${text.slice(0, 300)}\n  for ${describeRequest(sent)}`);
  return text;
}

/** A share link's page (not its `/fhir`): it answers a link that does not work, or a 429, with a page. */
const SHARE_PAGE = /^\/share\/[^/?]*(\?|$)/;

function sharePageProblem(response: Response, text: string): string | undefined {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/html")) return errorBodyProblem(response, text);
  if (text.length > MAX_ERROR_BYTES) return `error page of ${text.length} characters`;
  return text.includes("<h1>") ? undefined : "an error page without a heading";
}

/** Error bodies quote the request only in short: never more than this, whatever was sent. */
export const MAX_ERROR_BYTES = 16_384;

/** What is wrong with a 4xx answer's body, measured against `{"error": {code, message, requestId, details?}}`. */
export function errorBodyProblem(response: Response, text: string): string | undefined {
  if (text.length > MAX_ERROR_BYTES) return `error body of ${text.length} characters`;
  let error: { code?: string; message?: unknown; requestId?: unknown; details?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    return "error body is not JSON";
  }
  const kind = ERROR_KINDS[error?.code as keyof typeof ERROR_KINDS];
  if (!error || !kind) return "not the documented error body";
  if (kind.status !== response.status) return `code ${error.code} with the wrong status`;
  if (typeof error.message !== "string" || error.message.length === 0) return "no message";
  if (error.requestId !== response.headers.get("x-request-id")) return "requestId differs from X-Request-Id";
  if (error.code === "VALIDATION_FAILED" && error.details === undefined) return "validation error without details";
  return error.details === undefined ? undefined : detailsProblem(error.details);
}

/**
 * The OAuth endpoints answer as OAuth defines (RFC 6749 section 5.2: `{"error", "error_description"}`),
 * and the pages of the authorization flow as pages; the service's own refusals before them (body
 * limit, validation) are the documented error body.
 */
export function oauthErrorProblem(response: Response, text: string): string | undefined {
  if (text.length > MAX_ERROR_BYTES) return `error body of ${text.length} characters`;
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/html")) return text.includes("<h1>") ? undefined : "an error page without a heading";
  let body: { error?: unknown; error_description?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return "error body is neither JSON nor a page";
  }
  if (typeof body.error === "string") {
    return body.error_description === undefined || typeof body.error_description === "string"
      ? undefined
      : "error_description is not a string";
  }
  return errorBodyProblem(response, text);
}

function detailsProblem(details: unknown): string | undefined {
  if (!Array.isArray(details) || details.length === 0) return "details is not a non-empty array";
  for (const detail of details as { in?: string; path?: unknown; message?: unknown }[]) {
    if (!DETAIL_PARTS.has(detail.in ?? "")) return `detail without a known "in": ${JSON.stringify(detail)}`;
    if (typeof detail.path !== "string" || !detail.path.startsWith("/")) return "detail path is not a JSON pointer";
    if (typeof detail.message !== "string" || detail.message.trim().length === 0) return "detail without a message";
  }
  return undefined;
}

/**
 * The accounts' stored rows, as one comparable string: everything a request could change for them
 * (the account, its API keys but for their last use, profile, logs and entries, lab panels, chats,
 * messages, shares, uploads, pages).
 */
export async function snapshot(sql: Sql, accountIds: string[]): Promise<string> {
  const [row] = await sql`
    select
      (select string_agg(x::text, '|' order by x::text) from accounts x where id = any(${accountIds}::uuid[])) as accounts,
      (select string_agg(concat_ws(',', x.id, x.display_prefix, x.revoked_at), '|' order by x.id) from api_keys x
        where account_id = any(${accountIds}::uuid[])) as keys,
      (select string_agg(x::text, '|' order by x::text) from health_profiles x where account_id = any(${accountIds}::uuid[])) as profiles,
      (select string_agg(x::text, '|' order by x::text) from trackers x where account_id = any(${accountIds}::uuid[])) as trackers,
      (select string_agg(x::text, '|' order by x::text) from tracker_entries x join trackers t on t.id = x.tracker_id
        where t.account_id = any(${accountIds}::uuid[])) as entries,
      (select string_agg(x::text, '|' order by x::text) from lab_panels x where account_id = any(${accountIds}::uuid[])) as labs,
      (select string_agg(x::text, '|' order by x::text) from chats x where account_id = any(${accountIds}::uuid[])) as chats,
      (select string_agg(x::text, '|' order by x::text) from chat_messages x join chats c on c.id = x.chat_id
        where c.account_id = any(${accountIds}::uuid[])) as messages,
      (select string_agg(x::text, '|' order by x::text) from chat_shares x join chats c on c.id = x.chat_id
        where c.account_id = any(${accountIds}::uuid[])) as shares,
      (select string_agg(x::text, '|' order by x::text) from uploads x where account_id = any(${accountIds}::uuid[])) as uploads,
      (select string_agg(x::text, '|' order by x::text) from upload_pages x join uploads u on u.id = x.upload_id
        where u.account_id = any(${accountIds}::uuid[])) as pages`;
  return JSON.stringify(row);
}

/** Requests tried per operation, and how they were answered; printed as a table at the end. */
export class Tally {
  readonly rows = new Map<string, { sent: number; accepted: number; rejected: number; pastAuth: number }>();

  /** `pastAuth`: the request got past authentication (its input reached the route's own checks). */
  count(operation: string, rejected: boolean, pastAuth = true): void {
    const row = this.rows.get(operation) ?? { sent: 0, accepted: 0, rejected: 0, pastAuth: 0 };
    row.sent += 1;
    if (!rejected) row.accepted += 1;
    else row.rejected += 1;
    if (pastAuth) row.pastAuth += 1;
    this.rows.set(operation, row);
  }

  table(): string {
    const width = Math.max(...[...this.rows.keys()].map((name) => name.length), 9);
    const lines = [...this.rows].map(
      ([name, row]) =>
        `${name.padEnd(width)}  ${String(row.sent).padStart(6)}  ${String(row.pastAuth).padStart(9)}  ${String(row.accepted).padStart(8)}  ${String(row.rejected).padStart(8)}`,
    );
    const total = [...this.rows.values()].reduce((sum, row) => sum + row.sent, 0);
    return [
      `${"operation".padEnd(width)}  ${"tried".padStart(6)}  ${"past auth".padStart(9)}  ${"accepted".padStart(8)}  ${"rejected".padStart(8)}`,
      ...lines,
      `total ${total}`,
    ].join("\n");
  }
}
