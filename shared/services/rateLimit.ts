import type { Redis } from "../redis";

/**
 * Hourly request limit as an exact sliding window (a sorted-set log of request times per account).
 * Why not a fixed window or GCRA: both let a client make close to 2N requests inside some 60-minute
 * span; the log guarantees "at most N in any rolling hour", which is what "N requests per hour"
 * promises, and it makes `Retry-After` exact. It costs one sorted-set entry per request in the last
 * hour (≤ 3,600 per pro account, ~100 KB), which Redis handles easily.
 *
 * The same script also checks the key's auth version (bumped on revocation or plan change), so one
 * round trip both validates the API process's cached key and takes a slot. Time comes from Redis,
 * so every API process shares one clock. Counting and the decision are atomic, so with N allowed,
 * exactly N of N+k concurrent requests pass, whichever processes serve them.
 */
const SCRIPT = `
local version = redis.call('GET', KEYS[2]) or '0'
if ARGV[4] ~= '*' and version ~= ARGV[4] then return {-1, 0, 0, version} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  redis.call('HSET', KEYS[3], ARGV[5], now)
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, limit - count - 1, tonumber(oldest[2]) + window - now, version}
end
-- Denied: a slot frees when the entry at position count-limit leaves the window.
local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
return {0, 0, tonumber(freeing[2]) + window - now, version}
`;

export const WINDOW_MS = 3_600_000;

export interface RateDecision {
  /** `stale` means the caller's cached auth version is out of date: re-read the key, nothing was counted. */
  outcome: "allowed" | "denied" | "stale";
  limit: number;
  remaining: number;
  /** Milliseconds until the oldest counted request leaves the window (when denied: until a slot frees). */
  resetMs: number;
  authVersion: string;
}

export interface RateLimitCall {
  rateKey: string;
  authVersionKey: string;
  usageKey: string;
  limit: number;
  /** Unique per request (the request id): sorted-set members must not collide. */
  requestId: string;
  keyId: string;
  /** The auth version the caller cached, or `*` to accept whatever is current. */
  expectedVersion: string;
}

type Reply = [number, number, number, string];

export function createRateLimiter(redis: Redis, windowMs = WINDOW_MS) {
  const sha = new Bun.CryptoHasher("sha1").update(SCRIPT).digest("hex");

  async function run(call: RateLimitCall): Promise<Reply> {
    const keys = [call.rateKey, call.authVersionKey, call.usageKey];
    const args = [windowMs, call.limit, call.requestId, call.expectedVersion, call.keyId];
    try {
      return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as Reply;
    } catch (error) {
      if (!String((error as Error).message).includes("NOSCRIPT")) throw error;
      return (await redis.eval(SCRIPT, keys.length, ...keys, ...args)) as Reply;
    }
  }

  return async function consume(call: RateLimitCall): Promise<RateDecision> {
    const [code, remaining, resetMs, authVersion] = await run(call);
    const outcome = code === 1 ? "allowed" : code === 0 ? "denied" : "stale";
    return {
      outcome,
      limit: call.limit,
      remaining: Math.max(0, remaining),
      resetMs: Math.max(0, resetMs),
      authVersion,
    };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
