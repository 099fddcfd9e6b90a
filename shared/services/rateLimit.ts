import type { Redis } from "../redis";

/**
 * Hourly request limit as an exact sliding window (a sorted-set log of request times per account).
 * Why not a fixed window or GCRA: both let a client make close to 2N requests inside some 60-minute
 * span; the log guarantees "at most N in any rolling hour", which is what "N requests per hour"
 * promises, and it makes `Retry-After` exact. It costs one sorted-set entry per request in the last
 * hour (≤ 3,600 per pro account, ~100 KB), which Redis handles easily.
 *
 * The same script checks the key's auth version (bumped on revocation or plan change), so one round
 * trip both validates the API process's cached key and takes slots. Time comes from Redis, so every
 * API process shares one clock; counting and deciding are atomic.
 *
 * Leases: a busy key may take up to `want` slots at once and spend them in-process for
 * `leaseMs`, which saves a Redis round trip on most requests. Leased slots are logged at the end of
 * the lease (never earlier than the requests that use them), so the window stays conservative, and
 * unused ones are handed back. Leases are only granted while more than `threshold` slots are free:
 * near the limit every request asks Redis, so with N allowed exactly N of N+k concurrent requests
 * pass, whichever processes serve them.
 */
const SCRIPT = `
local version = redis.call('GET', KEYS[2]) or '0'
if ARGV[4] ~= '*' and version ~= ARGV[4] then return {-1, 0, 0, version} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, limit, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local free = limit - count
if free <= 0 then
  -- Denied: a slot frees when the entry at position count-limit leaves the window.
  local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return {0, 0, tonumber(freeing[2]) + window - now, version}
end
local grant, score = 1, now
local want, threshold = tonumber(ARGV[7]), tonumber(ARGV[8])
if want > 1 and free > threshold then
  grant = math.min(want, free - threshold)
  score = now + leaseMs
elseif ARGV[9] == 'prefetch' then
  -- A prefetch serves no request now: near the limit it takes nothing.
  return {-2, free, 0, version}
end
local entries = {}
for i = 1, grant do
  entries[#entries + 1] = score
  entries[#entries + 1] = ARGV[3] .. ':' .. i
end
redis.call('ZADD', KEYS[1], unpack(entries))
redis.call('PEXPIRE', KEYS[1], window + leaseMs)
redis.call('HSET', KEYS[3], ARGV[5], now)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {grant, free - grant, tonumber(oldest[2]) + window - now, version}
`;

export const WINDOW_MS = 3_600_000;
export const LEASE_MS = 1000;
/** Leases are only granted while more slots than this are free. */
export const LEASE_THRESHOLD = 64;

export interface RateDecision {
  /**
   * `stale`: the caller's cached auth version is out of date; re-read the key, nothing was counted.
   * `skipped`: a prefetch found too few free slots to lease; nothing was counted.
   */
  outcome: "allowed" | "denied" | "stale" | "skipped";
  limit: number;
  /** Slots taken (1, or more for a lease); 0 unless allowed. */
  granted: number;
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
  /** Unique per request (the request id); slot members are `<requestId>:<n>`. */
  requestId: string;
  keyId: string;
  /** The auth version the caller cached, or `*` to accept whatever is current. */
  expectedVersion: string;
  /** How many slots the caller would like to lease (1 = just this request). */
  want?: number;
  /** A background refill for requests still to come: lease or take nothing. */
  prefetch?: boolean;
}

type Reply = [number, number, number, string];

export function createRateLimiter(redis: Redis, options: { windowMs?: number; leaseMs?: number } = {}) {
  const windowMs = options.windowMs ?? WINDOW_MS;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const sha = new Bun.CryptoHasher("sha1").update(SCRIPT).digest("hex");

  async function run(call: RateLimitCall): Promise<Reply> {
    const keys = [call.rateKey, call.authVersionKey, call.usageKey];
    const args = [
      windowMs,
      call.limit,
      call.requestId,
      call.expectedVersion,
      call.keyId,
      leaseMs,
      call.want ?? 1,
      LEASE_THRESHOLD,
    ];
    try {
      return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as Reply;
    } catch (error) {
      // A restarted Redis has forgotten the script: send it once in full.
      if (!String((error as Error).message).includes("NOSCRIPT")) throw error;
      return (await redis.eval(SCRIPT, keys.length, ...keys, ...args)) as Reply;
    }
  }

  return async function consume(call: RateLimitCall): Promise<RateDecision> {
    const [code, remaining, resetMs, authVersion] = await run(call);
    const outcome = code >= 1 ? "allowed" : code === 0 ? "denied" : code === -1 ? "stale" : "skipped";
    return {
      outcome,
      limit: call.limit,
      granted: Math.max(0, code),
      remaining: Math.max(0, remaining),
      resetMs: Math.max(0, resetMs),
      authVersion,
    };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
