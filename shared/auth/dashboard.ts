import type { Ctx, SystemCtx } from "../context/ctx";
import { publicUrl } from "../core/env";
import { AppError } from "../core/errors";
import { redisKeys } from "../core/redis";
import { unavailable } from "../core/unavailable";
import { peekUsage } from "../ratelimit/limiter";
import { type AdminCtx, createKey, listKeys, revokeKey } from "./accounts";
import type { KeyList, McpConfig, NewKey, RevokedKey, Usage } from "./schemas";

/** The developer dashboard's verbs act for the signed-in account; its keys are the ones the admin CLI makes. */
export type DashboardCtx = Pick<Ctx, "sql" | "redis" | "env" | "plans" | "accountId" | "plan">;

/** Enough for any real use; a cap keeps a runaway script from filling the table. */
export const MAX_ACTIVE_KEYS = 25;

function adminCtx(ctx: DashboardCtx): AdminCtx {
  return { sql: ctx.sql, redis: ctx.redis, redisPrefix: ctx.env.REDIS_PREFIX };
}

/** Read from the counter the API keys spend; reading it spends nothing. */
export async function usageThisHour(ctx: DashboardCtx): Promise<Usage> {
  const deps = adminCtx(ctx);
  const account = { accountId: ctx.accountId, plan: ctx.plan };
  const limit = ctx.plans[account.plan].requestsPerHour;
  const { used, resetMs } = await peekUsage(deps.redis, redisKeys(deps.redisPrefix).rateLimit(account.accountId)).catch(
    unavailable("Redis"),
  );
  return {
    plan: account.plan,
    limit,
    used,
    remaining: Math.max(0, limit - used),
    resetsAt: resetMs === null ? null : new Date(Date.now() + resetMs).toISOString(),
  };
}

export async function listAccountKeys(ctx: DashboardCtx): Promise<KeyList> {
  const rows = await listKeys(adminCtx(ctx), ctx.accountId).catch(unavailable("PostgreSQL"));
  return {
    keys: rows.map((row) => ({
      id: row.id,
      prefix: row.displayPrefix,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
    })),
  };
}

/** Issues a key; the full key is in this answer only. */
export async function createAccountKey(ctx: DashboardCtx): Promise<NewKey> {
  const { keys } = await listAccountKeys(ctx);
  if (keys.filter((key) => key.revokedAt === null).length >= MAX_ACTIVE_KEYS) {
    throw new AppError("CONFLICT", `An account can hold ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
  }
  const issued = await createKey(adminCtx(ctx), ctx.accountId).catch(unavailable("PostgreSQL"));
  const { keys: after } = await listAccountKeys(ctx);
  const row = after.find((key) => key.id === issued.keyId);
  if (!row) throw new AppError("INTERNAL", "The new key was not found after it was created.");
  return { id: row.id, key: issued.apiKey, prefix: row.prefix, createdAt: row.createdAt };
}

/** Revokes one of the account's keys; another account's key is not found, like an unknown one. */
export async function revokeAccountKey(ctx: DashboardCtx, input: { keyId: string }): Promise<RevokedKey> {
  const { keyId } = input;
  const { keys } = await listAccountKeys(ctx);
  if (!keys.some((key) => key.id === keyId)) throw new AppError("NOT_FOUND", `Unknown key: ${keyId}`);
  await revokeKey(adminCtx(ctx), keyId).catch(unavailable("PostgreSQL or Redis"));
  return { id: keyId, revoked: true as const };
}

/**
 * A streamable-HTTP MCP client configuration for this server, with a placeholder for the key. The
 * server is PUBLIC_URL when set, else the origin the page was requested from.
 */
export function mcpClientConfig(ctx: Pick<SystemCtx, "env">, input: { origin: string }): McpConfig {
  const baseUrl = ctx.env.PUBLIC_URL ? publicUrl(ctx.env) : input.origin;
  const url = `${baseUrl.replace(/\/$/, "")}/api/mcp`;
  return {
    url,
    config: {
      mcpServers: {
        "papers-health": { type: "http", url, headers: { Authorization: "Bearer <YOUR_API_KEY>" } },
      },
    },
  };
}
