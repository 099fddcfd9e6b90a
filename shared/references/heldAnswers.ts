import type { Env } from "../core/env";
import { fromPostgres } from "../core/unavailable";
import type { Db } from "../db/sql";
import { findCachedReferenceVersions } from "./cacheRepository";
import { isFresh } from "./config";

/**
 * Finished medication answers held in this process, so that a repeated lookup is not read from
 * PostgreSQL as two JSONB rows, parsed, validated and serialized again: an answer is held already
 * serialized, all but its `query` member (which echoes the caller's spelling).
 *
 * Why confirmed on every use, and not a short TTL plus invalidation messages: `reference_cache` is
 * the source of truth, and it is written by the lookup jobs of any process, by the demo seed and by
 * operators with plain SQL (a bad upstream answer is deleted by hand). Only the table itself sees
 * every one of those writes, at once and for every API process; a message could be missed or
 * arrive after the next request. So a held answer is served only after one small query confirms
 * that its rows still have the versions it was built from (`xmin`, which every write of a row
 * changes): one round trip returning two short rows, instead of two returning the answer's JSONB.
 * Freshness stays the table's rule too: a held answer is served only while both of its parts are
 * within REFERENCE_CACHE_TTL_HOURS of being fetched (`isFresh`); after that the lookup takes the
 * normal path (the queue, or the stale answer when the upstream fails).
 *
 * Only answers read fresh from the table are held, never live or stale ones, so an answer is held
 * from the second time its query is asked. Held answers are bounded by count (LRU).
 */
export interface HeldAnswer {
  /** The answer's cache rows; `openfda` is null when no label lookup was needed. */
  keys: { rxnav: string; openfda: string | null };
  versions: { rxnav: string; openfda: string | null };
  fetchedAt: { rxnorm: Date; fda: Date };
  /** The serialized answer after its `query` member: `"rxnorm":…,"disclaimer":"…"}`. */
  tail: string;
}

/** At most ~20 KB each: a few MB per process for the medications people actually ask about. */
const MAX_HELD = 500;

/** Per database client, so two deployments in one process (tests, benches) never share answers. */
const heldBySql = new WeakMap<Db, Map<string, HeldAnswer>>();

function heldFor(sql: Db): Map<string, HeldAnswer> {
  let held = heldBySql.get(sql);
  if (!held) {
    held = new Map();
    heldBySql.set(sql, held);
  }
  return held;
}

/** The held answer for a medication cache key, once confirmed fresh and current; else undefined. */
export async function findHeldAnswer(ctx: { sql: Db; env: Env }, key: string): Promise<HeldAnswer | undefined> {
  const held = heldFor(ctx.sql);
  const answer = held.get(key);
  if (!answer) return undefined;
  if (!isFresh(answer.fetchedAt.rxnorm, ctx.env) || !isFresh(answer.fetchedAt.fda, ctx.env)) {
    held.delete(key);
    return undefined;
  }
  const versions = await fromPostgres(findCachedReferenceVersions(ctx.sql, answer.keys));
  const current = versions.rxnav === answer.versions.rxnav && (versions.openfda ?? null) === answer.versions.openfda;
  // Another request may have held a newer answer meanwhile: that one stays as it is.
  if (held.get(key) === answer) {
    held.delete(key);
    if (current) held.set(key, answer);
  }
  return current ? answer : undefined;
}

export function holdAnswer(sql: Db, key: string, answer: HeldAnswer): void {
  const held = heldFor(sql);
  held.delete(key);
  held.set(key, answer);
  if (held.size > MAX_HELD) held.delete(held.keys().next().value as string);
}
