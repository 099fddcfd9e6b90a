import { findKeyOwnerByHash } from "../db/repositories/accounts";
import type { Sql } from "../db/sql";
import { AppError } from "../errors";
import { hashApiKey, isWellFormedKey, sameHash } from "../keys";
import type { PlanId, PlanTable } from "../plans";
import { type Redis, redisKeys } from "../redis";
import { createRateLimiter, type RateDecision } from "./rateLimit";
import { unavailable } from "./unavailable";

/** Who is calling: resolved from an API key, carried into every service verb. */
export interface Principal {
  accountId: string;
  keyId: string;
  plan: PlanId;
}

export interface AuthDeps {
  sql: Sql;
  redis: Redis;
  redisPrefix: string;
  plans: PlanTable;
}

interface CacheEntry {
  principal: Principal | null;
  version: string;
  expiresAt: number;
}

/** Upper bound on how long a process trusts its cached copy of a key when Redis cannot tell it otherwise. */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 50_000;
const UNAUTHORIZED = "Provide a valid API key as `Authorization: Bearer <key>` or `x-api-key: <key>`.";

/**
 * Authenticates an API key and takes one request from its account's hourly budget.
 *
 * Keys are cached in-process by hash so the hot path is one Redis round trip and no PostgreSQL
 * query. Revocation and plan changes bump the key's auth version in Redis; the rate-limit script
 * compares it with the cached one, so a revoked key is refused on its very next request in every
 * API process. Unknown keys are cached too (they cannot become valid: keys are random), so a
 * client spraying bad keys cannot load PostgreSQL.
 */
export function createAuthenticator(deps: AuthDeps) {
  const keys = redisKeys(deps.redisPrefix);
  const consume = createRateLimiter(deps.redis);
  const cache = new Map<string, CacheEntry>();

  async function load(hash: Buffer, hex: string): Promise<CacheEntry> {
    // Read the version before the row: a revocation committed after this read bumps the version,
    // and the script then reports our entry as stale.
    const version = (await deps.redis.get(keys.authVersion(hex)).catch(unavailable("Redis"))) ?? "0";
    const owner = await findKeyOwnerByHash(deps.sql, hash).catch(unavailable("PostgreSQL"));
    const principal =
      owner && sameHash(owner.keyHash, hash)
        ? { accountId: owner.accountId, keyId: owner.keyId, plan: owner.plan }
        : null;
    const entry = { principal, version, expiresAt: Date.now() + CACHE_TTL_MS };
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(hex, entry);
    return entry;
  }

  return async function authorize(
    apiKey: string | undefined,
    requestId: string,
  ): Promise<{ principal: Principal; rate: RateDecision }> {
    if (!apiKey || !isWellFormedKey(apiKey)) throw new AppError("UNAUTHORIZED", UNAUTHORIZED);
    const hash = hashApiKey(apiKey);
    const hex = hash.toString("hex");
    let entry = cache.get(hex);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!entry || entry.expiresAt < Date.now()) entry = await load(hash, hex);
      const principal = entry.principal;
      if (!principal) throw new AppError("UNAUTHORIZED", UNAUTHORIZED);
      const rate = await consume({
        rateKey: keys.rateLimit(principal.accountId),
        authVersionKey: keys.authVersion(hex),
        usageKey: keys.keyUsage,
        limit: deps.plans[principal.plan].requestsPerHour,
        requestId,
        keyId: principal.keyId,
        expectedVersion: entry.version,
      }).catch(unavailable("Redis"));
      if (rate.outcome === "stale") {
        cache.delete(hex);
        entry = undefined;
        continue;
      }
      if (rate.outcome === "denied") throw rateLimited(rate);
      return { principal, rate };
    }
    throw new AppError("UNAVAILABLE", "Authentication did not settle; retry.", { headers: { "Retry-After": "1" } });
  };
}

export type Authorize = ReturnType<typeof createAuthenticator>;

export function rateLimitHeaders(rate: RateDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(rate.limit),
    "RateLimit-Remaining": String(rate.remaining),
    "RateLimit-Reset": String(Math.ceil(rate.resetMs / 1000)),
  };
}

function rateLimited(rate: RateDecision): AppError {
  const retryAfter = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
  return new AppError("RATE_LIMITED", `Hourly limit of ${rate.limit} requests reached; retry in ${retryAfter} s.`, {
    headers: { ...rateLimitHeaders(rate), "Retry-After": retryAfter },
  });
}

/** Makes every API process re-read these keys on their next use (after revocation or a plan change). */
export async function bumpAuthVersions(redis: Redis, redisPrefix: string, keyHashes: Buffer[]): Promise<void> {
  if (keyHashes.length === 0) return;
  const keys = redisKeys(redisPrefix);
  const pipeline = redis.multi();
  for (const hash of keyHashes) pipeline.incr(keys.authVersion(hash.toString("hex")));
  await pipeline.exec();
}
