import { findAccountByEmail } from "../../shared/db/repositories/accounts";
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
