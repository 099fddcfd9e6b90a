import { AppError } from "../core/errors";
import type { PlanId, PlanTable } from "../core/plans";
import { type Redis, redisKeys } from "../core/redis";
import { unavailable } from "../core/unavailable";
import { peekUsage } from "../ratelimit/limiter";
import { type AccountDeps, createKey, listKeys, revokeKey } from "./accounts";

/** The developer dashboard's verbs, for the signed-in account. Keys are the same keys the admin CLI makes. */
export interface DashboardDeps extends AccountDeps {
  redis: Redis;
  plans: PlanTable;
}

/** Enough for any real use; a cap keeps a runaway script from filling the table. */
export const MAX_ACTIVE_KEYS = 25;

export async function usageThisHour(deps: DashboardDeps, account: { accountId: string; plan: PlanId }) {
  const limit = deps.plans[account.plan].requestsPerHour;
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

export async function listAccountKeys(deps: DashboardDeps, accountId: string) {
  const rows = await listKeys(deps, accountId).catch(unavailable("PostgreSQL"));
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
export async function createAccountKey(deps: DashboardDeps, accountId: string) {
  const { keys } = await listAccountKeys(deps, accountId);
  if (keys.filter((key) => key.revokedAt === null).length >= MAX_ACTIVE_KEYS) {
    throw new AppError("CONFLICT", `An account can hold ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
  }
  const issued = await createKey(deps, accountId).catch(unavailable("PostgreSQL"));
  const { keys: after } = await listAccountKeys(deps, accountId);
  const row = after.find((key) => key.id === issued.keyId);
  if (!row) throw new AppError("INTERNAL", "The new key was not found after it was created.");
  return { id: row.id, key: issued.apiKey, prefix: row.prefix, createdAt: row.createdAt };
}

/** Revokes one of the account's keys; another account's key is not found, like an unknown one. */
export async function revokeAccountKey(deps: DashboardDeps, accountId: string, keyId: string) {
  const { keys } = await listAccountKeys(deps, accountId);
  if (!keys.some((key) => key.id === keyId)) throw new AppError("NOT_FOUND", `Unknown key: ${keyId}`);
  await revokeKey(deps, keyId).catch(unavailable("PostgreSQL or Redis"));
  return { id: keyId, revoked: true as const };
}

/** A streamable-HTTP MCP client configuration for this server, with a placeholder for the key. */
export function mcpClientConfig(baseUrl: string) {
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
