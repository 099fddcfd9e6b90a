import type { Ctx } from "../context/ctx";
import { AppError, invalidRequest } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db } from "../core/unavailable";
import type { Db } from "../db/sql";
import { hasConsent, requireConsent, requireConsentToRead } from "../health/consent";
import { deletePanel, findPanelById, insertPanel, listPanelsByAccount, type PanelKey } from "./repository";
import { normalizeResult, resultProblems } from "./results";
import { LAB_PAGE, type LabPanel, type LabPanelInput, type LabPanelList } from "./schemas";

type LabCtx = Pick<Ctx, "sql" | "accountId">;

/** Panels of other accounts, and ids that cannot exist, look exactly like unknown ones. */
function notFound(id: string): AppError {
  return new AppError("NOT_FOUND", `No lab panel with id ${id}.`);
}

const CONSENT_MESSAGE =
  "Lab results need consent: save the profile with consentGiven: true (POST /api/v1/health/profile) first.";

/** Consent as the health logs use it: a saved profile. */
export function requireLabConsentToRead(sql: Db, accountId: string): Promise<void> {
  return requireConsentToRead(sql, accountId, CONSENT_MESSAGE);
}

/** Inside the write: holds the consent row until commit, so a profile deletion cannot miss the panel. */
function requireLabConsent(tx: Db, accountId: string): Promise<void> {
  return requireConsent(tx, accountId, CONSENT_MESSAGE);
}

/** A day of slack: a collection time "in the future" is usually a time zone written wrong. */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

function checkPanel(input: LabPanelInput): Date {
  const collectedAt = new Date(input.collectedAt);
  const problems = input.results.flatMap((result, index) => resultProblems(result, `/results/${index}`));
  if (collectedAt.getTime() > Date.now() + FUTURE_SLACK_MS) {
    problems.unshift({ in: "body", path: "/collectedAt", message: "Must not be in the future" });
  }
  if (problems.length > 0) throw invalidRequest(problems);
  return collectedAt;
}

/** Saves a manually entered panel; committed before it returns. */
export async function createPanel(ctx: LabCtx, input: LabPanelInput): Promise<LabPanel> {
  const collectedAt = checkPanel(input);
  const results = input.results.map(normalizeResult);
  return db(
    ctx.sql.begin(async (tx) => {
      await requireLabConsent(tx, ctx.accountId);
      return insertPanel(tx, {
        id: Bun.randomUUIDv7(),
        accountId: ctx.accountId,
        collectedAt,
        lab: input.lab?.trim() ?? null,
        source: null,
        results,
      });
    }),
  );
}

/** The cursor is the last panel of the page, opaque to clients (base64url JSON). */
function encodeCursor(key: PanelKey): string {
  return Buffer.from(JSON.stringify([key.collectedAt, key.id])).toString("base64url");
}

function decodeCursor(cursor: string): PanelKey {
  try {
    const [collectedAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown[];
    if (
      typeof collectedAt === "string" &&
      !Number.isNaN(Date.parse(collectedAt)) &&
      typeof id === "string" &&
      isUuid(id)
    ) {
      return { collectedAt, id };
    }
  } catch {
    // Not JSON: refused below like any other cursor this API did not issue.
  }
  throw invalidRequest([
    { in: "query", path: "/cursor", message: "Not a cursor this API returned (pass next_cursor as is)" },
  ]);
}

/**
 * One page of the caller's panels, newest collectedAt first. The keyset cursor visits every panel
 * that existed when paging started exactly once, whatever is created or deleted meanwhile.
 */
export async function listPanels(ctx: LabCtx, page: { limit?: number; cursor?: string }): Promise<LabPanelList> {
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  if (!(await hasConsent(ctx.sql, ctx.accountId))) return { consentGiven: false, panels: [], next_cursor: null };
  const limit = page.limit ?? LAB_PAGE.defaultLimit;
  const rows = await db(listPanelsByAccount(ctx.sql, ctx.accountId, { after, limit: limit + 1 }));
  const panels = rows.slice(0, limit);
  const last = panels.at(-1);
  return { consentGiven: true, panels, next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export async function getPanel(ctx: LabCtx, input: { id: string }): Promise<LabPanel> {
  await requireLabConsentToRead(ctx.sql, ctx.accountId);
  const panel = isUuid(input.id) ? await db(findPanelById(ctx.sql, ctx.accountId, input.id)) : undefined;
  if (!panel) throw notFound(input.id);
  return panel;
}

/** Permanent; needs no consent, so a person can always remove their data. */
export async function removePanel(ctx: LabCtx, input: { id: string }): Promise<{ deleted: true }> {
  if (!isUuid(input.id) || !(await db(deletePanel(ctx.sql, ctx.accountId, input.id)))) throw notFound(input.id);
  return { deleted: true };
}
