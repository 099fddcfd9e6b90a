import { AppError } from "../core/errors";
import { isWellFormedKey } from "../core/keys";
import type { PlanTable } from "../core/plans";
import { type Redis, redisKeys } from "../core/redis";
import { awaitReplica } from "../core/redisState";
import { unavailable } from "../core/unavailable";
import type { Sql } from "../db/sql";
import { type AuthEvents, announceAuthChange } from "../events/authEvents";
import { rateLimitRejections } from "../metrics/service";
import { createSlotLeases, type KeySlots } from "../ratelimit/leases";
import { createRateLimiter, type KeyCall, type RateDecision } from "../ratelimit/limiter";
import { createLeaseRecaller } from "../ratelimit/recalls";
import {
  type CacheEntry,
  forget,
  forgetAll,
  forgetHash,
  type KeyCache,
  type KeySource,
  load,
  newKeyCache,
  type Principal,
  releaseAccount,
} from "./keyCache";

export type { Principal } from "./keyCache";

export interface AuthDeps {
  sql: Sql;
  redis: Redis;
  redisPrefix: string;
  plans: PlanTable;
  authEvents?: AuthEvents;
}

/** What `authorize` works with, built once per process. */
interface AuthState {
  cache: KeyCache;
  source: KeySource;
  recallAndRetake: ReturnType<typeof createLeaseRecaller>;
}

/** Every hourly-limit 429 is built here, so this is where they are counted. */
const rejections = rateLimitRejections.labels();
const redisUnavailable = unavailable("Redis");
const UNAUTHORIZED = "Provide a valid API key as `Authorization: Bearer <key>` or `x-api-key: <key>`.";
/** Tries per request: a key Redis reports stale is re-read, then a 503 if it never settles. */
const MAX_ATTEMPTS = 3;

/**
 * Authenticates an API key and takes one request from its account's hourly budget.
 *
 * Keys are cached in-process (keyCache.ts), so the hot path has no hashing and no PostgreSQL query,
 * and a busy key spends leased rate-limit slots without a Redis round trip (see leases.ts). Revocation
 * and plan changes are announced to every process, which drops the key and its lease before the
 * change returns; as a backstop, each Redis round trip compares the key's auth version. Unknown keys
 * are cached too (they cannot become valid: keys are random), so retrying one bad key costs nothing.
 * Distinct random keys each cost one indexed lookup; throttling unauthenticated clients belongs in
 * front of this (see the hardening issue).
 */
export function createAuthenticator(deps: AuthDeps) {
  const leases = createSlotLeases(createRateLimiter(deps.redis), deps.redis);
  const state: AuthState = {
    cache: newKeyCache(leases),
    source: { sql: deps.sql, redis: deps.redis, keys: redisKeys(deps.redisPrefix), plans: deps.plans },
    recallAndRetake: createLeaseRecaller(deps.redis, deps.redisPrefix),
  };
  // What a listener returns is waited for before the acknowledgement: the slots handed back.
  deps.authEvents?.listen((event) =>
    event.kind === "recall" ? releaseAccount(state.cache, event.accountId) : forgetHash(state.cache, event.keyHashHex),
  );
  return {
    authorize: (apiKey: string | undefined) => authorize(state, apiKey),
    /**
     * `authorize` for a cached key with a leased slot left, which needs no I/O: answered without a
     * promise. Undefined whenever `authorize` has more to do (a lookup, a round trip, a refusal).
     */
    authorizeLeased: (apiKey: string | undefined) => authorizeLeased(state, apiKey),
    /** Hands every leased slot back (on shutdown), so a restart does not strand them for an hour. */
    dispose: (): Promise<unknown> => forgetAll(state.cache),
  };
}

/** An authenticated caller and the rate decision its request took. */
export interface Caller {
  principal: Principal;
  rate: RateDecision;
}

async function authorize(state: AuthState, apiKey: string | undefined): Promise<Caller> {
  if (!apiKey) throw unauthorized();
  let entry = state.cache.entries.get(apiKey);
  // Only well-formed keys are ever cached, so a cached one needs no second shape check.
  if (!entry && !isWellFormedKey(apiKey)) throw unauthorized();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!entry || entry.expiresAt < Date.now()) entry = await reload(state, apiKey, entry);
    const { principal, call, slots } = entry;
    if (!principal || !call) throw unauthorized();
    let rate: RateDecision;
    try {
      rate = await state.cache.leases.take(slots, call);
      if (rate.leasesRunning) rate = await recallAndRetake(state, principal.accountId, slots, call);
    } catch (error) {
      return redisUnavailable(error);
    }
    if (rate.outcome === "stale") {
      forget(state.cache, apiKey);
      entry = undefined;
      continue;
    }
    if (rate.outcome === "denied") throw rateLimited(rate);
    return { principal, rate };
  }
  throw new AppError("UNAVAILABLE", "Authentication did not settle; retry.", { headers: { "Retry-After": "1" } });
}

function authorizeLeased(state: AuthState, apiKey: string | undefined): Caller | undefined {
  const entry = apiKey === undefined ? undefined : state.cache.entries.get(apiKey);
  if (!entry?.principal || !entry.call || entry.expiresAt < Date.now()) return undefined;
  const rate = state.cache.leases.takeLeased(entry.slots, entry.call);
  return rate && { principal: entry.principal, rate };
}

/** A missing or expired entry is read again (an expired one drops its lease first). */
function reload(state: AuthState, apiKey: string, expired: CacheEntry | undefined): Promise<CacheEntry> {
  if (expired) forget(state.cache, apiKey);
  return load(state.cache, state.source, apiKey);
}

/** Redis refused while leases were running: recall them and ask again (see recalls.ts). */
function recallAndRetake(state: AuthState, accountId: string, slots: KeySlots, call: KeyCall): Promise<RateDecision> {
  return state.recallAndRetake(accountId, (recalled) => state.cache.leases.take(slots, call, recalled));
}

function unauthorized(): AppError {
  return new AppError("UNAUTHORIZED", UNAUTHORIZED);
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
export async function bumpAuthVersions(
  redis: Redis,
  redisPrefix: string,
  accountId: string,
  keyHashes: Buffer[],
): Promise<void> {
  if (keyHashes.length === 0) return;
  const keys = redisKeys(redisPrefix);
  const hexes = keyHashes.map((hash) => hash.toString("hex"));
  // One account's keys: one slot, so one transaction also on a cluster.
  const pipeline = redis.multi();
  for (const hex of hexes) pipeline.incr(keys.authVersion(accountId, hex));
  await pipeline.exec();
  // A bump lost in a failover would let a cached copy of a revoked key pass the version check.
  await awaitReplica(redis, keys.authVersion(accountId, hexes[0] as string));
  await announceAuthChange(redis, redisPrefix, hexes);
}
