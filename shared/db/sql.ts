import postgres from "postgres";

export type Sql = postgres.Sql;
/** A pool or an open transaction: what repositories run their queries on. */
export type Db = postgres.Sql | postgres.TransactionSql;

/** A timestamp column as the API shows it: ISO 8601 in UTC with milliseconds, like `Date#toISOString`. */
export function isoTimestamp(sql: Db, column: string) {
  return sql`to_char(${sql(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** One pool per process. `max` stays small: PostgreSQL connections are expensive, requests are short. */
export function createSql(url: string, options: { max?: number } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 5,
    // Seconds before a closed connection reconnects. The default grows to 20 s after a few failed
    // attempts, so after a short outage queries waited that long for a connection (and requests hung)
    // although PostgreSQL was back; a 1 s cap bounds the wait (test/integration/reliability/faultsOutages.test.ts).
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 1),
    onnotice: () => {},
    // Column names stay snake_case in SQL; repositories alias to camelCase explicitly.
    transform: { undefined: null },
  });
}

/** Creates the database named in `url` when it does not exist (connecting to `postgres` to do so). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new Error(`Unsupported database name: ${name}`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [row] = await sql`select 1 as present from pg_database where datname = ${name}`;
    if (!row) {
      await sql.unsafe(`create database "${name}"`).catch((error: { code?: string }) => {
        // 42P04: created concurrently by another process (api and workers start together).
        if (error.code !== "42P04") throw error;
      });
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Drops a database (tests only). */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
