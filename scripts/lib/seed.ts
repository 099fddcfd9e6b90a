import { createMeili } from "../../search-index/client";
import { indexUid } from "../../search-index/indexes";
import { findAccountByEmail } from "../../shared/auth/accountRepository";
import { createAccount } from "../../shared/auth/accounts";
import { accountHasPassword, generatePassword, setPassword } from "../../shared/auth/webAuth";
import { databaseUrl, type Env, redisTarget } from "../../shared/core/env";
import { createRedis } from "../../shared/core/redis";
import { DEMO_PAPERS_FILE } from "../../shared/core/shippedData";
import { createSql, type Sql } from "../../shared/db/sql";
import { countPapers } from "../../shared/papers/repository";

export const DEMO_EMAIL = "demo@example.com";

/** Creates the demo account (pro plan) once. Its key exists only in the return value of the first run. */
export async function seedDemo(env: Env): Promise<{ accountId: string; apiKey?: string }> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const redis = createRedis(redisTarget(env), "worker");
  try {
    const existing = await findAccountByEmail(sql, DEMO_EMAIL);
    if (existing) return { accountId: existing.id };
    const created = await createAccount(
      { sql, redis, redisPrefix: env.REDIS_PREFIX },
      { plan: "pro", email: DEMO_EMAIL },
    );
    return { accountId: created.accountId, apiKey: created.apiKey };
  } finally {
    await sql.end({ timeout: 5 });
    redis.disconnect();
  }
}

/**
 * Gives the demo account a website password once (generated, returned only by that run), so
 * `bun run start` offers a working sign-in next to the demo key.
 */
export async function seedDemoLogin(env: Env, accountId: string): Promise<{ email: string; password?: string }> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  try {
    if (await accountHasPassword({ sql }, accountId)) return { email: DEMO_EMAIL };
    const password = generatePassword();
    await setPassword({ sql }, accountId, password);
    return { email: DEMO_EMAIL, password };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The real arXiv slice shipped with the project (its provenance: papers/PROVENANCE.md in the data folder). */
export const DEMO_PAPERS = DEMO_PAPERS_FILE;

/**
 * Runs a loader CLI on a shipped file when `count` says its table is empty, as a child so its
 * progress shows as usual (the loaders go through the queue, so workers must be running).
 */
export async function loadWhenEmpty(
  env: Env,
  childEnv: Record<string, string | undefined>,
  load: { what: string; count: (sql: Sql) => Promise<number>; script: string; file: string },
): Promise<void> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const count = await load.count(sql).finally(() => sql.end({ timeout: 5 }));
  if (count > 0) return;
  process.stdout.write(`Loading the demo ${load.what}…\n`);
  const child = Bun.spawn([process.execPath, load.script, load.file], {
    env: childEnv,
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await child.exited) !== 0) throw new Error(`Loading the demo ${load.what} failed (see above).`);
}

/**
 * Rebuilds the paper search index from PostgreSQL (`papers:reindex`, through the queue) when it
 * holds fewer papers than the table: after an upgrade emptied an index of an earlier document
 * layout (shared/indexing/settings.ts), or when Meilisearch's data was lost.
 */
export async function reindexWhenBehind(env: Env, childEnv: Record<string, string | undefined>): Promise<boolean> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const stored = await countPapers(sql).finally(() => sql.end({ timeout: 5 }));
  const meili = createMeili(env.MEILI_URL as string, env.MEILI_MASTER_KEY);
  const indexed = (await meili.index(indexUid(env.MEILI_INDEX_PREFIX, "papers")).getStats()).numberOfDocuments;
  if (indexed >= stored) return false;
  process.stdout.write(`Rebuilding the paper search index from PostgreSQL (${indexed} of ${stored} papers indexed)…\n`);
  const child = Bun.spawn([process.execPath, "scripts/papers-reindex.ts"], {
    env: childEnv,
    stdout: "ignore",
    stderr: "inherit",
  });
  if ((await child.exited) !== 0) throw new Error("Rebuilding the paper search index failed (see above).");
  return true;
}

/** Loads the demo papers through the queue (like any ingest) when the papers table is empty. */
export function seedDemoPapers(env: Env, childEnv: Record<string, string | undefined>): Promise<void> {
  return loadWhenEmpty(env, childEnv, {
    what: "papers",
    count: countPapers,
    script: "scripts/papers-ingest.ts",
    file: DEMO_PAPERS,
  });
}
