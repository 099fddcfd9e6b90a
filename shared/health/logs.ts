import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db } from "../core/unavailable";
import { canMove, normalizeEntry, STATUS_MOVES } from "./entries";
import {
  deleteTracker,
  findTrackerById,
  insertEntryKeepingNewest,
  insertTracker,
  listEntries,
  listNewestEntries,
  listTrackersByAccount,
  lockTracker,
  type TrackerRow,
  updateTracker,
} from "./logRepository";
import { type HealthCtx, hasConsent, requireConsent } from "./profile";
import {
  ENTRY_LIMITS,
  type Entry,
  type EntryInput,
  TRACKER_PAGE,
  type Tracker,
  type TrackerInput,
  type TrackerList,
  type TrackerPatch,
  type TrackerStatus,
} from "./schemas";

/** Logs of other accounts, and ids that cannot exist, look exactly like unknown ones. */
function notFound(id: string): AppError {
  return new AppError("NOT_FOUND", `No health log with id ${id}.`);
}

async function requireConsentToRead(ctx: HealthCtx): Promise<void> {
  if (!(await hasConsent(ctx))) {
    throw new AppError(
      "CONSENT_REQUIRED",
      "Reading a health log needs consent: save the profile with consentGiven: true.",
    );
  }
}

export async function createTracker(ctx: HealthCtx, input: TrackerInput): Promise<Tracker> {
  const row = await db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      return insertTracker(tx, {
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
    throw new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
      details: [{ in: "query", path: "/cursor", message: "Not a cursor this API returned (pass next_cursor as is)" }],
    });
  }
  return id;
}

/**
 * One page of the caller's logs, newest first, each with its newest few entries. A keyset cursor
 * (ids are time-ordered) visits every log exactly once while others are created or deleted.
 */
export async function listTrackers(ctx: HealthCtx, page: { limit?: number; cursor?: string }): Promise<TrackerList> {
  const before = page.cursor ? decodeCursor(page.cursor) : null;
  if (!(await hasConsent(ctx))) return { consentGiven: false, trackers: [], next_cursor: null };
  const limit = page.limit ?? TRACKER_PAGE.defaultLimit;
  const rows = await db(listTrackersByAccount(ctx.sql, ctx.accountId, { before, limit: limit + 1 }));
  const shown = rows.slice(0, limit);
  const entries = await db(
    listNewestEntries(
      ctx.sql,
      shown.map((row) => row.id),
      TRACKER_PAGE.entriesInList,
    ),
  );
  const last = shown.at(-1);
  return {
    consentGiven: true,
    trackers: shown.map((row) => ({ ...row, entries: entries.get(row.id) ?? [] })),
    next_cursor: rows.length > limit && last ? encodeCursor(last.id) : null,
  };
}

async function ownedTracker(ctx: HealthCtx, id: string): Promise<TrackerRow> {
  const row = isUuid(id) ? await db(findTrackerById(ctx.sql, ctx.accountId, id)) : undefined;
  if (!row) throw notFound(id);
  return row;
}

/** One log with all its stored entries, newest first. */
export async function getTracker(ctx: HealthCtx, id: string): Promise<Tracker> {
  await requireConsentToRead(ctx);
  const row = await ownedTracker(ctx, id);
  return { ...row, entries: await db(listEntries(ctx.sql, row.id)) };
}

/** The log and all its entries, oldest first (exports read chronologically). */
export async function readTrackerForExport(
  ctx: HealthCtx,
  id: string,
): Promise<{ tracker: TrackerRow; entries: Entry[] }> {
  await requireConsentToRead(ctx);
  const tracker = await ownedTracker(ctx, id);
  return { tracker, entries: await db(listEntries(ctx.sql, tracker.id, "oldest")) };
}

/** Resolving stamps the time, reopening clears it, archiving keeps whatever was there. */
function resolvedAtAfter(from: TrackerStatus, to: TrackerStatus): "now" | "keep" | "clear" {
  if (from === to) return "keep";
  if (to === "resolved") return "now";
  return to === "active" ? "clear" : "keep";
}

/** Renames a log and/or moves its status (see STATUS_MOVES); `resolvedAt` follows the status. */
export async function patchTracker(ctx: HealthCtx, id: string, patch: TrackerPatch): Promise<Tracker> {
  if (!isUuid(id)) throw notFound(id);
  await db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      const current = await lockTracker(tx, ctx.accountId, id);
      if (!current) throw notFound(id);
      const status = patch.status ?? current;
      if (!canMove(current, status)) {
        throw new AppError(
          "CONFLICT",
          `A ${current} log cannot become ${status}; from ${current} it can become ${STATUS_MOVES[current].join(" or ")}.`,
        );
      }
      await updateTracker(tx, ctx.accountId, id, {
        title: patch.title?.trim() ?? null,
        status,
        resolvedAt: resolvedAtAfter(current, status),
      });
    }),
  );
  return getTracker(ctx, id);
}

/** Permanent; needs no consent, so a person can always remove their data. */
export async function removeTracker(ctx: HealthCtx, id: string): Promise<{ deleted: true }> {
  if (!isUuid(id) || !(await db(deleteTracker(ctx.sql, ctx.accountId, id)))) throw notFound(id);
  return { deleted: true };
}

/**
 * Appends an entry to an active log, keeping only its newest 180. Committed before it returns,
 * so an acknowledged entry is never lost.
 */
export async function addEntry(ctx: HealthCtx, trackerId: string, input: EntryInput): Promise<Entry> {
  const entry = normalizeEntry(input);
  if (!isUuid(trackerId)) throw notFound(trackerId);
  return db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(tx, ctx.accountId);
      const status = await lockTracker(tx, ctx.accountId, trackerId);
      if (!status) throw notFound(trackerId);
      if (status !== "active") {
        throw new AppError("CONFLICT", `The log is ${status}; reopen it (PATCH status "active") to add entries.`);
      }
      return insertEntryKeepingNewest(tx, trackerId, { id: Bun.randomUUIDv7(), ...entry }, ENTRY_LIMITS.entriesKept);
    }),
  );
}
