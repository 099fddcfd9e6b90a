import type { Db } from "../db/sql";

export type ReferenceSource = "rxnav" | "openfda";

export interface CachedReference<T> {
  value: T;
  fetchedAt: Date;
  /**
   * The row's version: PostgreSQL's `xmin`, the transaction that wrote this row version. Any
   * insert, update (even of `fetched_at` alone) or delete-and-insert gives the row a new one.
   */
  version: string;
}

export async function findCachedReference<T>(
  sql: Db,
  source: ReferenceSource,
  key: string,
): Promise<CachedReference<T> | undefined> {
  const [row] = await sql<CachedReference<T>[]>`
    select value, fetched_at as "fetchedAt", xmin::text as version
    from reference_cache where source = ${source} and key = ${key}`;
  return row;
}

/** Where a cached answer lives: its upstream and its key. */
export interface CacheRow {
  source: ReferenceSource;
  key: string;
}

/**
 * The current versions of cache rows (see CachedReference.version), by `rowId`; a row that does not
 * exist has none. One statement for any number of rows.
 */
export async function findCachedReferenceVersions(sql: Db, rows: CacheRow[]): Promise<Map<string, string>> {
  const found = await sql<(CacheRow & { version: string })[]>`
    select source, key, xmin::text as version from reference_cache
    where (source, key) in (
      select * from unnest(${sql.array(rows.map((row) => row.source))}::text[], ${sql.array(rows.map((row) => row.key))}::text[]))`;
  return new Map(found.map((row) => [rowId(row), row.version]));
}

export function rowId(row: CacheRow): string {
  return `${row.source} ${row.key}`;
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
