import type { Db } from "../db/sql";

export type ReferenceSource = "rxnav" | "openfda";

export interface CachedReference<T> {
  value: T;
  fetchedAt: Date;
}

export async function findCachedReference<T>(
  sql: Db,
  source: ReferenceSource,
  key: string,
): Promise<CachedReference<T> | undefined> {
  const [row] = await sql<{ value: T; fetchedAt: Date }[]>`
    select value, fetched_at as "fetchedAt" from reference_cache where source = ${source} and key = ${key}`;
  return row;
}

export async function upsertCachedReference(
  sql: Db,
  entry: { source: ReferenceSource; key: string; value: unknown; fetchedAt?: Date },
): Promise<void> {
  const fetchedAt = entry.fetchedAt ?? new Date();
  await sql`
    insert into reference_cache (source, key, value, fetched_at)
    values (${entry.source}, ${entry.key}, ${sql.json(entry.value as never)}, ${fetchedAt})
    on conflict (source, key) do update set value = excluded.value, fetched_at = excluded.fetched_at`;
}

/** Adds an entry unless one exists (demo seeding never overwrites a real answer). */
export async function insertCachedReferenceIfMissing(
  sql: Db,
  entry: { source: ReferenceSource; key: string; value: unknown },
): Promise<boolean> {
  const result = await sql`
    insert into reference_cache (source, key, value) values (${entry.source}, ${entry.key}, ${sql.json(entry.value as never)})
    on conflict (source, key) do nothing`;
  return result.count === 1;
}
