import type { CompleteResult } from "@modelcontextprotocol/server";
import type { Feature } from "../../shared/auth/access";
import { isAuthorized } from "../../shared/auth/authorize";
import type { Scope } from "../../shared/auth/scopes";
import { searchConditions } from "../../shared/conditions/lookup";
import type { Ctx } from "../../shared/context/ctx";
import { codePoints } from "../../shared/core/text";
import { logNamesStartingWith } from "../../shared/health/logNames";
import { getProfile } from "../../shared/health/profile";
import { listRecordImports } from "../../shared/healthRecords/imports";
import { paperIdsStartingWith } from "../../shared/papers/idPrefix";
import { cachedMedicationNamesStartingWith } from "../../shared/references/medicationNames";

/**
 * The completion sources: what a value may complete to, each from the caller's own data or the
 * public references, through the same verbs as the tools. A source the token's scopes or the plan
 * do not cover completes to nothing (not an error), so a completion never shows what the caller
 * could not read.
 */
export type Completion = CompleteResult["completion"];

export type Completer = (ctx: Ctx, value: string) => Promise<Completion>;

/** The spec's cap on values per answer. */
const MAX_VALUES = 100;
export const NO_COMPLETION: Completion = { values: [], total: 0, hasMore: false };

/** Up to MAX_VALUES of `values`; `total` when known (else more than the values sent). */
function completion(values: string[], total?: number): Completion {
  const known = total ?? (values.length > MAX_VALUES ? undefined : values.length);
  const hasMore = known === undefined || known > MAX_VALUES;
  return { values: values.slice(0, MAX_VALUES), ...(known === undefined ? {} : { total: known }), hasMore };
}

const distinctIgnoringCase = (values: string[]) => {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = value.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

function gated(scopes: Scope[], feature: Feature | undefined, source: Completer): Completer {
  return async (ctx, value) => {
    if (!(await isAuthorized(ctx, { scope: scopes, feature }))) return NO_COMPLETION;
    return source(ctx, value);
  };
}

/** Stored paper ids (without version) starting with the value. */
export const paperIds = gated(["papers:read"], undefined, async (ctx, value) => {
  const { ids, total } = await paperIdsStartingWith(ctx, { prefix: value.trim(), limit: MAX_VALUES });
  return completion(ids, total);
});

/** MONDO labels for what was typed (prefixes and typos tolerated), best first: the condition search. */
export const conditionNames = gated(["papers:read"], "health", async (ctx, value) => {
  const q = value.trim();
  const length = codePoints(q);
  if (length < 2 || length > 120) return NO_COMPLETION;
  const { data } = await searchConditions(ctx, { q, limit: MAX_VALUES + 1 });
  const labels = distinctIgnoringCase(data.map((hit) => hit.label));
  return labels.length > MAX_VALUES ? completion(labels) : completion(labels, labels.length);
});

/**
 * Medication names starting with the value: the caller's profile medications first (with
 * `health:read` and consent), then the names the medication reference cache knows (lowercase,
 * alphabetical): names a lookup is known to resolve.
 */
export const medicationNames = gated(["papers:read"], "health", async (ctx, value) => {
  const prefix = value.trim().toLowerCase();
  const own = (await isAuthorized(ctx, { scope: "health:read" })) ? (await getProfile(ctx)).medications : [];
  const cached = await cachedMedicationNamesStartingWith(ctx, { prefix, limit: MAX_VALUES + 1 });
  const names = distinctIgnoringCase([...own.filter((name) => name.toLowerCase().startsWith(prefix)), ...cached]);
  // More cached names than were read: the count is unknown.
  return cached.length > MAX_VALUES ? completion(names) : completion(names, names.length);
});

/** Titles of the caller's logs starting with the value (ignoring case), newest first. */
export const logTitles = gated(["health:read"], "health", async (ctx, value) => {
  const { logs, total } = await logNamesStartingWith(ctx, { prefix: value.trim(), ids: false, limit: MAX_VALUES });
  const titles = distinctIgnoringCase(logs.map((log) => log.title));
  // Logs sharing a title are one value: the count is exact only when every match was read.
  return total > logs.length ? completion(titles) : completion(titles, titles.length);
});

/** Ids of the caller's logs whose title or id starts with the value. */
export const logIds = gated(["health:read"], "health", async (ctx, value) => {
  const { logs, total } = await logNamesStartingWith(ctx, { prefix: value.trim(), ids: true, limit: MAX_VALUES });
  return completion(
    logs.map((log) => log.id),
    total,
  );
});

/** Ids of the caller's record imports whose filename (ignoring case) or id starts with the value, newest first. */
export const recordImportIds = gated(["health:read"], "health", async (ctx, value) => {
  const prefix = value.trim().toLowerCase();
  // Without consent the list is empty, as list_health_logs is.
  const { imports } = await listRecordImports(ctx);
  const ids = imports
    .filter((item) => item.filename.toLowerCase().startsWith(prefix) || item.id.startsWith(prefix))
    .map((item) => item.id);
  return completion(ids, ids.length);
});
