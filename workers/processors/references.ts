import type { Deps } from "../../shared/context/deps";
import {
  type LabelQuery,
  labelKey,
  type MedicationQuery,
  medicationKey,
} from "../../shared/jobs/payloads/referenceQueries";
import {
  findCachedReference,
  type ReferenceSource,
  upsertCachedReference,
} from "../../shared/references/cacheRepository";
import { isFresh, openFdaConfig, rxnavConfig } from "../../shared/references/config";
import { lookupLabel } from "../../shared/references/openfda";
import { lookupRxnorm } from "../../shared/references/rxnav";

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
  deps: Deps,
  source: ReferenceSource,
  key: string,
  fetch: () => Promise<T>,
): Promise<LookupResult<T>> {
  const cached = await findCachedReference<T>(deps.sql, source, key);
  if (cached && isFresh(cached.fetchedAt, deps.env)) {
    return { value: cached.value, fetchedAt: cached.fetchedAt.toISOString(), live: false };
  }
  const value = await fetch();
  const fetchedAt = new Date();
  await upsertCachedReference(deps.sql, { source, key, value, fetchedAt });
  return { value, fetchedAt: fetchedAt.toISOString(), live: true };
}

export function rxnavLookup(deps: Deps, query: MedicationQuery) {
  return cachedLookup(deps, "rxnav", medicationKey(query), () => lookupRxnorm(rxnavConfig(deps.env), query));
}

export function openFdaLookup(deps: Deps, query: LabelQuery) {
  return cachedLookup(deps, "openfda", labelKey(query), () => lookupLabel(openFdaConfig(deps.env), query));
}
