import { join } from "node:path";
import { findAccountByEmail } from "../../shared/db/repositories/accounts";
import { countPapers } from "../../shared/db/repositories/papers";
import { createSql } from "../../shared/db/sql";
import { databaseUrl, type Env, redisUrl } from "../../shared/env";
import { createRedis } from "../../shared/redis";
import { createAccount } from "../../shared/services/accounts";

export const DEMO_EMAIL = "demo@example.com";

/** Creates the demo account (pro plan) once. Its key exists only in the return value of the first run. */
export async function seedDemo(env: Env): Promise<{ accountId: string; apiKey?: string }> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const redis = createRedis(redisUrl(env), "worker");
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

/** The real arXiv slice shipped with the project (provenance in shared/data/papers/PROVENANCE.md). */
export const DEMO_PAPERS = join(import.meta.dir, "../../shared/data/papers/demo.jsonl.gz");

/**
 * Loads the demo papers through the queue (like any ingest) when the papers table is empty.
 * Runs the ingest CLI as a child so its progress shows as usual.
 */
export async function seedDemoPapers(env: Env, childEnv: Record<string, string | undefined>): Promise<void> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const count = await countPapers(sql).finally(() => sql.end({ timeout: 5 }));
  if (count > 0) return;
  process.stdout.write("Loading the demo papers…\n");
  const ingest = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", DEMO_PAPERS], {
    env: childEnv,
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await ingest.exited) !== 0) throw new Error("Loading the demo papers failed (see above).");
}
