import { hashApiKey, sameHash } from "../core/keys";
import type { PlanId, PlanTable } from "../core/plans";
import type { Redis, redisKeys } from "../core/redis";
import { unavailable } from "../core/unavailable";
import type { Sql } from "../db/sql";
import { type KeySlots, newKeySlots, type SlotLeases } from "../ratelimit/leases";
import type { KeyCall } from "../ratelimit/limiter";
import { findKeyAccountByHash, findKeyOwnerByHash } from "./accountRepository";

/** Who is calling: resolved from an API key, carried into every service verb. */
export interface Principal {
  accountId: string;
  keyId: string;
  plan: PlanId;
  /** An OAuth token's granted scopes (shared/auth/scopes.ts); absent for keys and sessions: all. */
  scopes?: ReadonlySet<string>;
}

export interface CacheEntry {
  /** Hex SHA-256 of the key: how Redis and PostgreSQL know it. */
  hex: string;
  principal: Principal | null;
  version: string;
  expiresAt: number;
  slots: KeySlots;
  /** The key's rate-limit call, built once (a request served from a lease sends nothing). */
  call?: KeyCall;
}

/** Where a key is looked up on a cache miss. */
export interface KeySource {
  sql: Sql;
  redis: Redis;
  keys: ReturnType<typeof redisKeys>;
  plans: PlanTable;
}

/**
 * The API keys this process knows, with their leased slots. Keyed by the key itself, so a cached
 * request costs no hashing; `byHash` finds entries to forget when a change is announced by hash.
 */
export interface KeyCache {
  entries: Map<string, CacheEntry>;
  byHash: Map<string, string>;
  /** Lookups in flight: concurrent requests with the same uncached key share one. */
  loading: Map<string, Promise<CacheEntry>>;
  leases: SlotLeases;
}

/** Upper bound on how long a process trusts its cached copy of a key without hearing from Redis. */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 50_000;

export function newKeyCache(leases: SlotLeases): KeyCache {
  return { entries: new Map(), byHash: new Map(), loading: new Map(), leases };
}

/** Drops a cached key; resolves once its leased slots are back in Redis. */
export function forget(cache: KeyCache, apiKey: string): Promise<unknown> | undefined {
  const entry = cache.entries.get(apiKey);
  if (!entry) return;
  cache.entries.delete(apiKey);
  cache.byHash.delete(entry.hex);
  return cache.leases.releaseAll(entry.slots);
}

/** Drops the cached key with this hash, if any (a revocation or plan change was announced). */
export function forgetHash(cache: KeyCache, hex: string): Promise<unknown> | undefined {
  const apiKey = cache.byHash.get(hex);
  return apiKey ? forget(cache, apiKey) : undefined;
}

/** Hands back the leased slots of every cached key of an account (a recall; rare, so a scan). */
export function releaseAccount(cache: KeyCache, accountId: string): Promise<unknown> {
  const released: Promise<unknown>[] = [];
  for (const entry of cache.entries.values()) {
    if (entry.principal?.accountId === accountId) released.push(cache.leases.releaseAll(entry.slots));
  }
  return Promise.all(released);
}

/** Drops every key, handing all leased slots back. */
export function forgetAll(cache: KeyCache): Promise<unknown> {
  return Promise.all([...cache.entries.keys()].map((apiKey) => forget(cache, apiKey)));
}

/** The key's entry, read once however many requests ask for it meanwhile. */
export function load(cache: KeyCache, source: KeySource, apiKey: string): Promise<CacheEntry> {
  let pending = cache.loading.get(apiKey);
  if (!pending) {
    pending = read(cache, source, apiKey).finally(() => cache.loading.delete(apiKey));
    cache.loading.set(apiKey, pending);
  }
  return pending;
}

async function read(cache: KeyCache, source: KeySource, apiKey: string): Promise<CacheEntry> {
  const entry = await lookUp(source, apiKey);
  if (cache.entries.size >= CACHE_MAX) forget(cache, cache.entries.keys().next().value as string);
  cache.entries.set(apiKey, entry);
  cache.byHash.set(entry.hex, apiKey);
  return entry;
}

/** Reads a key's owner from PostgreSQL; an unknown key gets an entry too (keys are random, it stays unknown). */
async function lookUp(source: KeySource, apiKey: string): Promise<CacheEntry> {
  const hash = hashApiKey(apiKey);
  const hex = hash.toString("hex");
  // Read the version before the live row: a revocation committed after this read bumps the
  // version, and the script then reports our entry as stale. The version sits beside the account's
  // rate keys, so the key's account (which never changes, revoked or not) is read first.
  const accountId = await findKeyAccountByHash(source.sql, hash).catch(unavailable("PostgreSQL"));
  const version = accountId
    ? ((await source.redis.get(source.keys.authVersion(accountId, hex)).catch(unavailable("Redis"))) ?? "0")
    : "0";
  const owner = accountId ? await findKeyOwnerByHash(source.sql, hash).catch(unavailable("PostgreSQL")) : undefined;
  const principal =
    owner && sameHash(owner.keyHash, hash)
      ? { accountId: owner.accountId, keyId: owner.keyId, plan: owner.plan }
      : null;
  return {
    hex,
    principal,
    version,
    expiresAt: Date.now() + CACHE_TTL_MS,
    slots: newKeySlots(),
    call: principal ? keyCall(source, hex, principal, version) : undefined,
  };
}

function keyCall(source: KeySource, hex: string, principal: Principal, version: string): KeyCall {
  return {
    rateKey: source.keys.rateLimit(principal.accountId),
    authVersionKey: source.keys.authVersion(principal.accountId, hex),
    usageKey: source.keys.keyUsage,
    limit: source.plans[principal.plan].requestsPerHour,
    keyId: principal.keyId,
    expectedVersion: version,
  };
}
