import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "./sql";

const MIGRATIONS_DIR = join(import.meta.dir, "migrations");
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Any constant works; it only has to be the same in every process that migrates. */
const LOCK_ID = 7_305_112_001;

export interface Migration {
  version: number;
  name: string;
  file: string;
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith(".sql")).sort();
  return files.map((file) => {
    const match = FILE.exec(file);
    if (!match) throw new Error(`Migration file name must look like 0001_what.sql: ${file}`);
    return { version: Number(match[1]), name: match[2] as string, file: join(dir, file) };
  });
}

/**
 * Applies pending migrations in order and records them, all in one transaction so a failing
 * file leaves nothing half-applied. Forward-only. An advisory lock serializes concurrent
 * starters (API and workers boot together).
 */
export async function migrate(sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const done = new Set((await tx`select version from schema_migrations`).map((row) => row.version as number));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.unsafe(await Bun.file(migration.file).text());
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(`${String(migration.version).padStart(4, "0")}_${migration.name}`);
    }
  });
  return applied;
}
