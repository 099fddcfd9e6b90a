import type { SystemCtx } from "../context/ctx";
import { type LabelQuery, labelKey, type MedicationQuery, medicationKey } from "../jobs/payloads/referenceQueries";
import { findCachedReference, type ReferenceSource, upsertCachedReference } from "./cacheRepository";
import { isFresh, openFdaConfig, rxnavConfig } from "./config";
import { lookupLabel } from "./openfda";
import { lookupRxnorm } from "./rxnav";

type LookupCtx = Pick<SystemCtx, "sql" | "env">;

/** What a lookup job returns to the request waiting for it. */
export interface LookupResult<T> {
  value: T;
  fetchedAt: string;
  /** false when another job had just cached the answer and the upstream was not asked. */
  live: boolean;
}

/**
 * Runs one upstream lookup and caches the answer. A fresh cache entry written by a job that ran
 * just before this one (two API processes missing the cache at once) is returned as is, so
 * concurrent identical lookups cost the upstream one call.
 */
async function cachedLookup<T>(
  ctx: LookupCtx,
  source: ReferenceSource,
  key: string,
  fetch: () => Promise<T>,
): Promise<LookupResult<T>> {
  const cached = await findCachedReference<T>(ctx.sql, source, key);
  if (cached && isFresh(cached.fetchedAt, ctx.env)) {
    return { value: cached.value, fetchedAt: cached.fetchedAt.toISOString(), live: false };
  }
  const value = await fetch();
  const fetchedAt = new Date();
  await upsertCachedReference(ctx.sql, { source, key, value, fetchedAt });
  return { value, fetchedAt: fetchedAt.toISOString(), live: true };
}

/** The `references.rxnav-lookup` job. */
export function rxnavLookup(ctx: LookupCtx, query: MedicationQuery) {
  return cachedLookup(ctx, "rxnav", medicationKey(query), () => lookupRxnorm(rxnavConfig(ctx.env), query));
}

/** The `references.openfda-lookup` job. */
export function openFdaLookup(ctx: LookupCtx, query: LabelQuery) {
  return cachedLookup(ctx, "openfda", labelKey(query), () => lookupLabel(openFdaConfig(ctx.env), query));
}
