import type { Ctx } from "../context/ctx";
import { AppError, invalidRequest } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db } from "../core/unavailable";
import { hasConsent, requireConsent, requireConsentToRead } from "./consent";
import { canMove, normalizeEntry, STATUS_MOVES } from "./entries";
import {
  deleteLog,
  findLogById,
  type HealthLogRow,
  insertEntryKeepingNewest,
  insertLog,
  listEntries,
  listLogsByAccount,
  listNewestEntries,
  lockLog,
  startLogNoLaterThan,
  updateLog,
} from "./logRepository";
import {
  ENTRY_LIMITS,
  type Entry,
  type EntryInput,
  type HealthLog,
  type HealthLogInput,
  type HealthLogList,
  type HealthLogPatch,
  LOG_PAGE,
  type LogStatus,
} from "./schemas";

/** Logs of other accounts, and ids that cannot exist, look exactly like unknown ones. */
function notFound(id: string): AppError {
  return new AppError("NOT_FOUND", `No health log with id ${id}.`);
}

export async function createLog(ctx: Pick<Ctx, "sql" | "accountId">, input: HealthLogInput): Promise<HealthLog> {
  const row = await db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      return insertLog(tx, {
        id: Bun.randomUUIDv7(),
        accountId: ctx.accountId,
        title: input.title.trim(),
        kind: input.kind,
      });
    }),
  );
  return { ...row, entries: [] };
}

/** The cursor is the last id of the page, opaque to clients (base64url). */
function encodeCursor(id: string): string {
  return Buffer.from(id).toString("base64url");
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString();
  if (!isUuid(id)) {
    throw invalidRequest([
      { in: "query", path: "/cursor", message: "Not a cursor this API returned (pass next_cursor as is)" },
    ]);
  }
  return id;
}

/**
 * One page of the caller's logs, newest first, each with its newest few entries. A keyset cursor
 * (ids are time-ordered) visits every log exactly once while others are created or deleted.
 */
export async function listLogs(
  ctx: Pick<Ctx, "sql" | "accountId">,
  page: { limit?: number; cursor?: string },
): Promise<HealthLogList> {
  const before = page.cursor ? decodeCursor(page.cursor) : null;
  if (!(await hasConsent(ctx.sql, ctx.accountId))) return { consentGiven: false, trackers: [], next_cursor: null };
  const limit = page.limit ?? LOG_PAGE.defaultLimit;
  const rows = await db(listLogsByAccount(ctx.sql, ctx.accountId, { before, limit: limit + 1 }));
  const shown = rows.slice(0, limit);
  const entries = await db(
    listNewestEntries(
      ctx.sql,
      shown.map((row) => row.id),
      LOG_PAGE.entriesInList,
    ),
  );
  const last = shown.at(-1);
  return {
    consentGiven: true,
    trackers: shown.map((row) => ({ ...row, entries: entries.get(row.id) ?? [] })),
    next_cursor: rows.length > limit && last ? encodeCursor(last.id) : null,
  };
}

async function ownedLog(ctx: Pick<Ctx, "sql" | "accountId">, id: string): Promise<HealthLogRow> {
  const row = isUuid(id) ? await db(findLogById(ctx.sql, ctx.accountId, id)) : undefined;
  if (!row) throw notFound(id);
  return row;
}

/** One log with all its stored entries, newest first. */
export async function getLog(ctx: Pick<Ctx, "sql" | "accountId">, input: { id: string }): Promise<HealthLog> {
  await requireConsentToRead(ctx.sql, ctx.accountId);
  const row = await ownedLog(ctx, input.id);
  return { ...row, entries: await db(listEntries(ctx.sql, row.id)) };
}

/** The log and all its entries, oldest first (exports read chronologically). */
export async function readLogForExport(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string },
): Promise<{ log: HealthLogRow; entries: Entry[] }> {
  await requireConsentToRead(ctx.sql, ctx.accountId);
  const log = await ownedLog(ctx, input.id);
  return { log, entries: await db(listEntries(ctx.sql, log.id, "oldest")) };
}

/** Resolving stamps the time, reopening clears it, archiving keeps whatever was there. */
function resolvedAtAfter(from: LogStatus, to: LogStatus): "now" | "keep" | "clear" {
  if (from === to) return "keep";
  if (to === "resolved") return "now";
  return to === "active" ? "clear" : "keep";
}

/** Renames a log and/or moves its status (see STATUS_MOVES); `resolvedAt` follows the status. */
export async function patchLog(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string; changes: HealthLogPatch },
): Promise<HealthLog> {
  const { id, changes } = input;
  if (!isUuid(id)) throw notFound(id);
  await db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      const current = await lockLog(tx, ctx.accountId, id);
      if (!current) throw notFound(id);
      const status = changes.status ?? current;
      if (!canMove(current, status)) {
        throw new AppError(
          "CONFLICT",
          `A ${current} log cannot become ${status}; from ${current} it can become ${STATUS_MOVES[current].join(" or ")}.`,
        );
      }
      await updateLog(tx, ctx.accountId, id, {
        title: changes.title?.trim() ?? null,
        status,
        resolvedAt: resolvedAtAfter(current, status),
      });
    }),
  );
  return getLog(ctx, { id });
}

/** Permanent; needs no consent, so a person can always remove their data. */
export async function removeLog(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string },
): Promise<{ deleted: true }> {
  const { id } = input;
  if (!isUuid(id) || !(await db(deleteLog(ctx.sql, ctx.accountId, id)))) throw notFound(id);
  return { deleted: true };
}

/**
 * Appends an entry to an active log, keeping only its newest `ENTRY_LIMITS.entriesKept`. Committed
 * before it returns, so an acknowledged entry is never lost.
 */
export async function addEntry(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { logId: string; entry: EntryInput },
): Promise<Entry> {
  const [saved] = await appendEntries(ctx, input.logId, [{ entry: input.entry }]);
  return saved as Entry;
}

/**
 * Adds entries recorded earlier, oldest first, to an active log of the caller (consent needed as for
 * any entry), and moves the log's start back to the first of them: for history brought in from
 * elsewhere, such as the demo account's. Times must be in the past and in order.
 */
export async function addPastEntries(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { logId: string; entries: { recordedAt: string; entry: EntryInput }[] },
): Promise<Entry[]> {
  const times = input.entries.map(({ recordedAt }) => Date.parse(recordedAt));
  const inOrder = times.every(
    (time, i) => Number.isFinite(time) && time <= Date.now() && (i === 0 || time >= (times[i - 1] as number)),
  );
  if (!inOrder) {
    throw invalidRequest([
      { in: "body", path: "/entries", message: "Entry times must be past instants, oldest first." },
    ]);
  }
  return appendEntries(ctx, input.logId, input.entries);
}

/** One transaction: consent held, the log locked and active, the entries in order (past ones dated). */
async function appendEntries(
  ctx: Pick<Ctx, "sql" | "accountId">,
  logId: string,
  entries: { entry: EntryInput; recordedAt?: string }[],
): Promise<Entry[]> {
  const rows = entries.map(({ entry, recordedAt }) => ({ ...normalizeEntry(entry), recordedAt }));
  if (!isUuid(logId)) throw notFound(logId);
  return db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      const status = await lockLog(tx, ctx.accountId, logId);
      if (!status) throw notFound(logId);
      if (status !== "active") {
        throw new AppError("CONFLICT", `The log is ${status}; reopen it (PATCH status "active") to add entries.`);
      }
      const saved: Entry[] = [];
      for (const row of rows) {
        saved.push(
          await insertEntryKeepingNewest(tx, logId, { id: Bun.randomUUIDv7(), ...row }, ENTRY_LIMITS.entriesKept),
        );
      }
      const first = rows[0]?.recordedAt;
      if (first) await startLogNoLaterThan(tx, logId, first);
      return saved;
    }),
  );
}
