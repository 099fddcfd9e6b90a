import type { SystemCtx } from "../context/ctx";
import { redisKeys } from "../core/redis";
import { touchApiKeys } from "./accountRepository";

/**
 * Moves API-key last-used times from the Redis hash the rate limiter fills to PostgreSQL.
 * The read and the delete are one MULTI, so a use recorded meanwhile lands in the next run.
 */
export async function keyUsage(ctx: Pick<SystemCtx, "sql" | "redis" | "env">): Promise<{ keys: number }> {
  const key = redisKeys(ctx.env.REDIS_PREFIX).keyUsage;
  const result = await ctx.redis.multi().hgetall(key).del(key).exec();
  const usage = (result?.[0]?.[1] ?? {}) as Record<string, string>;
  const entries = Object.entries(usage).map(([keyId, ms]) => ({ keyId, usedAt: new Date(Number(ms)) }));
  try {
    await touchApiKeys(ctx.sql, entries);
  } catch (error) {
    // Put the times back (keeping any newer ones) so a retry does not lose them.
    if (entries.length > 0) {
      const restore = ctx.redis.multi();
      for (const { keyId, usedAt } of entries) restore.hsetnx(key, keyId, String(usedAt.getTime()));
      await restore.exec();
    }
    throw error;
  }
  return { keys: entries.length };
}
