import type { Env } from "../core/env";
import { fromPostgres } from "../core/unavailable";
import type { Db } from "../db/sql";
import { type CacheRow, findCachedReferenceVersions, rowId } from "./cacheRepository";
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
 * arrive after the next request. So a held answer is served only after a query sent after the
 * request arrived confirms that its rows still have the versions the answer was built from (`xmin`,
 * which every write of a row changes): short rows instead of the answer's JSONB. Lookups that ask
 * in the same turn of the event loop share one statement for all their rows, so under load the
 * round trips are fewer than the requests (about one in five at 10 concurrent clients), and no
 * request ever trusts a read sent before it arrived.
 *
 * Freshness stays the table's rule: a held answer is served only while both of its parts are
 * within REFERENCE_CACHE_TTL_HOURS of being fetched (`isFresh`); after that the lookup takes the
 * normal path (the queue, or the stale answer when the upstream fails). Only answers read fresh
 * from the table are held, never live or stale ones, so an answer is held from the second time its
 * query is asked. Held answers are bounded by count (LRU).
 */
export interface HeldAnswer {
  /** The cache rows the answer was built from (one when no label lookup was needed). */
  rows: CacheRow[];
  /** Each row's version when it was read, in `rows` order. */
  versions: string[];
  fetchedAt: { rxnorm: Date; fda: Date };
  /** The serialized answer after its `query` member, UTF-8: `"rxnorm":…,"disclaimer":"…"}`. */
  tail: Uint8Array;
  /** The whole answer as last sent, for the spelling it echoes (most repeat lookups spell alike). */
  last?: { input: string; body: Uint8Array };
}

/** At most ~20 KB each: a few MB per process for the medications people actually ask about. */
const MAX_HELD = 500;

interface Confirmation {
  rows: Map<string, CacheRow>;
  versions: PromiseWithResolvers<Map<string, string>>;
}

/** One database's held answers, and the confirmation gathering this turn of the event loop. */
interface Holder {
  answers: Map<string, HeldAnswer>;
  next: Confirmation | undefined;
}

/** Per database client, so two deployments in one process (tests, benches) never share answers. */
const holders = new WeakMap<Db, Holder>();

function holderFor(sql: Db): Holder {
  let holder = holders.get(sql);
  if (!holder) {
    holder = { answers: new Map(), next: undefined };
    holders.set(sql, holder);
  }
  return holder;
}

/**
 * The rows' current versions, read by a statement sent after this call: at the end of this turn of
 * the event loop, together with the rows of every other lookup that asked in the same turn.
 */
function currentVersions(sql: Db, holder: Holder, rows: CacheRow[]): Promise<Map<string, string>> {
  if (!holder.next) {
    const confirmation: Confirmation = { rows: new Map(), versions: Promise.withResolvers() };
    holder.next = confirmation;
    setImmediate(() => {
      holder.next = undefined;
      findCachedReferenceVersions(sql, [...confirmation.rows.values()]).then(
        confirmation.versions.resolve,
        confirmation.versions.reject,
      );
    });
  }
  for (const row of rows) holder.next.rows.set(rowId(row), row);
  return holder.next.versions.promise;
}

/** The held answer for a medication cache key, once confirmed fresh and current; else undefined. */
export async function findHeldAnswer(ctx: { sql: Db; env: Env }, key: string): Promise<HeldAnswer | undefined> {
  const holder = holderFor(ctx.sql);
  const answer = holder.answers.get(key);
  if (!answer) return undefined;
  if (!isFresh(answer.fetchedAt.rxnorm, ctx.env) || !isFresh(answer.fetchedAt.fda, ctx.env)) {
    holder.answers.delete(key);
    return undefined;
  }
  const versions = await fromPostgres(currentVersions(ctx.sql, holder, answer.rows));
  const current = answer.rows.every((row, i) => versions.get(rowId(row)) === answer.versions[i]);
  // Another request may have held a newer answer meanwhile: that one stays as it is.
  if (holder.answers.get(key) === answer) {
    holder.answers.delete(key);
    if (current) holder.answers.set(key, answer);
  }
  return current ? answer : undefined;
}

export function holdAnswer(sql: Db, key: string, answer: HeldAnswer): void {
  const { answers } = holderFor(sql);
  answers.delete(key);
  answers.set(key, answer);
  if (answers.size > MAX_HELD) answers.delete(answers.keys().next().value as string);
}
