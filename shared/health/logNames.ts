import type { Ctx } from "../context/ctx";
import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db } from "../core/unavailable";
import { hasConsent, requireConsentToRead } from "./consent";
import { findLogById, type LogName, listLogNamesByPrefix, listLogsByTitle } from "./logRepository";

/**
 * Logs found by what a person types: a title's beginning (MCP completions) or a whole title or id
 * (an MCP prompt's argument). Consent and ownership work as for reading a log.
 */
type LogCtx = Pick<Ctx, "sql" | "accountId">;

/**
 * The caller's logs whose title (or, with `ids`, id) starts with `prefix`, newest first. Without
 * consent there are none, as the log list is empty then.
 */
export async function logNamesStartingWith(
  ctx: LogCtx,
  input: { prefix: string; ids: boolean; limit: number },
): Promise<{ logs: LogName[]; total: number }> {
  if (!(await hasConsent(ctx.sql, ctx.accountId))) return { logs: [], total: 0 };
  return db(listLogNamesByPrefix(ctx.sql, ctx.accountId, input));
}

/**
 * The caller's log with this id, else the one with this title (ignoring case). Several logs with
 * the title are refused with their ids, so the caller can pick one instead of getting a guess.
 */
export async function findLogByIdOrTitle(ctx: LogCtx, input: { ref: string }): Promise<LogName> {
  await requireConsentToRead(ctx.sql, ctx.accountId);
  const ref = input.ref.trim();
  const byId = isUuid(ref) ? await db(findLogById(ctx.sql, ctx.accountId, ref)) : undefined;
  if (byId) return { id: byId.id, title: byId.title };
  const named = await db(listLogsByTitle(ctx.sql, ctx.accountId, ref));
  const [only] = named;
  if (named.length === 1 && only) return only;
  if (named.length === 0) throw new AppError("NOT_FOUND", `No health log with the id or title "${ref}".`);
  const ids = named.map((log) => log.id).join(", ");
  throw new AppError("BAD_REQUEST", `Several health logs are titled "${ref}"; name one by its id: ${ids}.`);
}
