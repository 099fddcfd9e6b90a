import { AppError } from "../core/errors";
import { hashApiKey, isWellFormedKey, sameHash } from "../core/keys";
import type { PlanId, PlanTable } from "../core/plans";
import { type Redis, redisKeys } from "../core/redis";
import { rateLimitRejections } from "../core/serviceMetrics";
import { unavailable } from "../core/unavailable";
import type { Sql } from "../db/sql";
import { type AuthEvents, announceAuthChange } from "../events/authEvents";
import { createSlotLeases, type KeySlots, newKeySlots } from "../ratelimit/leases";
import { createRateLimiter, type KeyCall, type RateDecision } from "../ratelimit/limiter";
import { createLeaseRecaller } from "../ratelimit/recalls";
import { findKeyOwnerByHash } from "./accountRepository";

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
  authEvents?: AuthEvents;
}

interface CacheEntry {
  /** Hex SHA-256 of the key: how Redis and PostgreSQL know it. */
  hex: string;
  principal: Principal | null;
  version: string;
  expiresAt: number;
  slots: KeySlots;
  /** The key's rate-limit call, built once (a request served from a lease sends nothing). */
  call?: KeyCall;
}

/** Upper bound on how long a process trusts its cached copy of a key without hearing from Redis. */
const CACHE_TTL_MS = 60_000;
/** Every hourly-limit 429 is built here, so this is where they are counted. */
const rejections = rateLimitRejections.labels();
const CACHE_MAX = 50_000;
const redisUnavailable = unavailable("Redis");
const UNAUTHORIZED = "Provide a valid API key as `Authorization: Bearer <key>` or `x-api-key: <key>`.";

/**
 * Authenticates an API key and takes one request from its account's hourly budget.
 *
 * Keys are cached in-process, so the hot path has no hashing and no PostgreSQL query, and a busy key spends
 * leased rate-limit slots without a Redis round trip (see slotLeases.ts). Revocation and plan changes
 * are announced to every process, which drops the key and its lease before the change returns; as a
 * backstop, each Redis round trip compares the key's auth version. Unknown keys are cached too (they
 * cannot become valid: keys are random), so retrying one bad key costs nothing; concurrent requests
 * with the same uncached key share one lookup. Distinct random keys each cost one indexed lookup;
 * throttling unauthenticated clients belongs in front of this (see the hardening issue).
 */
export function createAuthenticator(deps: AuthDeps) {
  const keys = redisKeys(deps.redisPrefix);
  const leases = createSlotLeases(createRateLimiter(deps.redis), deps.redis);
  // Keyed by the key itself, so a cached request costs no hashing; `byHash` finds entries to
  // forget when a change is announced by hash.
  const cache = new Map<string, CacheEntry>();
  const byHash = new Map<string, string>();
  const loading = new Map<string, Promise<CacheEntry>>();

  // What a listener returns is waited for before the acknowledgement: the slots handed back.
  deps.authEvents?.listen((event) => {
    if (event.kind === "recall") return releaseAccount(event.accountId);
    const apiKey = byHash.get(event.keyHashHex);
    return apiKey ? forget(apiKey) : undefined;
  });

  /** Hands back the leased slots of every cached key of an account (a recall; rare, so a scan). */
  function releaseAccount(accountId: string): Promise<unknown> {
    const released: Promise<unknown>[] = [];
    for (const entry of cache.values()) {
      if (entry.principal?.accountId === accountId) released.push(leases.releaseAll(entry.slots));
    }
    return Promise.all(released);
  }

  const recallAndRetake = createLeaseRecaller(deps.redis, deps.redisPrefix);

  /** Drops a cached key; resolves once its leased slots are back in Redis. */
  function forget(apiKey: string): Promise<unknown> | undefined {
    const entry = cache.get(apiKey);
    if (!entry) return;
    cache.delete(apiKey);
    byHash.delete(entry.hex);
    return leases.releaseAll(entry.slots);
  }

  function load(apiKey: string): Promise<CacheEntry> {
    let pending = loading.get(apiKey);
    if (!pending) {
      pending = read(apiKey).finally(() => loading.delete(apiKey));
      loading.set(apiKey, pending);
    }
    return pending;
  }

  async function read(apiKey: string): Promise<CacheEntry> {
    const hash = hashApiKey(apiKey);
    const hex = hash.toString("hex");
    // Read the version before the row: a revocation committed after this read bumps the version,
    // and the script then reports our entry as stale.
    const version = (await deps.redis.get(keys.authVersion(hex)).catch(unavailable("Redis"))) ?? "0";
    const owner = await findKeyOwnerByHash(deps.sql, hash).catch(unavailable("PostgreSQL"));
    const principal =
      owner && sameHash(owner.keyHash, hash)
        ? { accountId: owner.accountId, keyId: owner.keyId, plan: owner.plan }
        : null;
    const entry: CacheEntry = {
      hex,
      principal,
      version,
      expiresAt: Date.now() + CACHE_TTL_MS,
      slots: newKeySlots(),
      call: principal
        ? {
            rateKey: keys.rateLimit(principal.accountId),
            authVersionKey: keys.authVersion(hex),
            usageKey: keys.keyUsage,
            limit: deps.plans[principal.plan].requestsPerHour,
            keyId: principal.keyId,
            expectedVersion: version,
          }
        : undefined,
    };
    if (cache.size >= CACHE_MAX) forget(cache.keys().next().value as string);
    cache.set(apiKey, entry);
    byHash.set(hex, apiKey);
    return entry;
  }

  async function authorize(apiKey: string | undefined): Promise<{ principal: Principal; rate: RateDecision }> {
    if (!apiKey) throw new AppError("UNAUTHORIZED", UNAUTHORIZED);
    let entry = cache.get(apiKey);
    // Only well-formed keys are ever cached, so a cached one needs no second shape check.
    if (!entry && !isWellFormedKey(apiKey)) throw new AppError("UNAUTHORIZED", UNAUTHORIZED);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!entry || entry.expiresAt < Date.now()) {
        if (entry) forget(apiKey);
        entry = await load(apiKey);
      }
      const { principal, call } = entry;
      if (!principal || !call) throw new AppError("UNAUTHORIZED", UNAUTHORIZED);
      let rate: RateDecision;
      try {
        const { slots } = entry;
        rate = await leases.take(slots, call);
        if (rate.leasesRunning) {
          rate = await recallAndRetake(principal.accountId, (recalled) => leases.take(slots, call, recalled));
        }
      } catch (error) {
        return redisUnavailable(error);
      }
      if (rate.outcome === "stale") {
        forget(apiKey);
        entry = undefined;
        continue;
      }
      if (rate.outcome === "denied") throw rateLimited(rate);
      return { principal, rate };
    }
    throw new AppError("UNAVAILABLE", "Authentication did not settle; retry.", { headers: { "Retry-After": "1" } });
  }

  /** Hands every leased slot back (on shutdown), so a restart does not strand them for an hour. */
  function dispose(): Promise<unknown> {
    return Promise.all([...cache.keys()].map(forget));
  }

  return { authorize, dispose };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

export function rateLimitHeaders(rate: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  setRateLimitHeaders(headers, rate);
  return headers;
}

/** Writes the three `RateLimit-*` headers into a header record (the hot path avoids a copy). */
export function setRateLimitHeaders(headers: Record<string, unknown>, rate: RateDecision): void {
  headers["ratelimit-limit"] = `${rate.limit}`;
  headers["ratelimit-remaining"] = `${rate.remaining}`;
  headers["ratelimit-reset"] = `${Math.ceil(rate.resetMs / 1000)}`;
}

/** The 429 for a denied decision, with the RateLimit-* headers and Retry-After. */
export function rateLimited(rate: RateDecision): AppError {
  rejections.inc();
  const retryAfter = String(Math.max(1, Math.ceil(rate.resetMs / 1000)));
  return new AppError("RATE_LIMITED", `Hourly limit of ${rate.limit} requests reached; retry in ${retryAfter} s.`, {
    headers: { ...rateLimitHeaders(rate), "Retry-After": retryAfter },
  });
}

/**
 * Makes every API process re-read these keys: bumps their auth versions (checked on each Redis round
 * trip) and announces the change (each process drops the key and its lease, and acknowledges).
 */
export async function bumpAuthVersions(redis: Redis, redisPrefix: string, keyHashes: Buffer[]): Promise<void> {
  if (keyHashes.length === 0) return;
  const keys = redisKeys(redisPrefix);
  const hexes = keyHashes.map((hash) => hash.toString("hex"));
  const pipeline = redis.multi();
  for (const hex of hexes) pipeline.incr(keys.authVersion(hex));
  await pipeline.exec();
  await announceAuthChange(redis, redisPrefix, hexes);
}
