import type { Redis } from "../core/redis";

/**
 * Hourly request limit as an exact sliding window (a sorted-set log of request times per account).
 * Why not a fixed window or GCRA: both let a client make close to 2N requests inside some 60-minute
 * span; the log guarantees "at most N in any rolling hour", which is what "N requests per hour"
 * promises, and it makes `Retry-After` exact.
 *
 * Log layout: each entry is `<slotId>#<n>`, scored with the time its n slots count from, and a
 * count key beside the log holds the slots its entries stand for (incremented on a grant,
 * decremented as entries leave the window or hand slots back). One entry per Redis round trip,
 * not per slot, keeps a lease of 256 slots as cheap for Redis as a single request (one member per
 * slot cost ~1.4 µs of Redis CPU each). A pro account's log holds at most 3,600 entries, usually
 * far fewer.
 * Only these scripts write the log and the count, always together; a missing count (a log written
 * before entries carried their slot counts, which were all one slot each) is recounted from the log.
 *
 * The same script checks the key's auth version (bumped on revocation or plan change), so one round
 * trip both validates the API process's cached key and takes slots. Time comes from Redis, so every
 * API process shares one clock; counting and deciding are atomic.
 *
 * Leases: a busy key may take up to `want` slots at once and spend them in-process for
 * `leaseMs`, which saves a Redis round trip on most requests. Leased slots are logged at the end of
 * the lease (never earlier than the requests that use them), so the window stays conservative, and
 * unused ones are handed back. Leases are only granted while more than `threshold` slots are free:
 * near the limit every request asks Redis. A refusal says whether leases are still running; the
 * caller then recalls them (every process hands back what it has not used) and asks again, so with
 * N allowed exactly N of N+k concurrent requests pass, whichever processes serve them.
 */
/** A process-unique prefix plus a counter: unique slot ids without a random draw per request. */
const SLOT_PREFIX = Bun.randomUUIDv7("base64url");
let slotCounter = 0;
export function nextSlotId(): string {
  slotCounter += 1;
  return `${SLOT_PREFIX}${slotCounter.toString(36)}`;
}

/** The log entry standing for `slots` slots taken by one round trip. */
function logEntry(slotId: string, slots: number): string {
  return `${slotId}#${slots}`;
}

/** Where the count of a log's slots lives. */
function slotCountKey(rateKey: string): string {
  return `${rateKey}:n`;
}

/** Set while an account's leases are paused (after a recall). */
function leasePauseKey(rateKey: string): string {
  return `${rateKey}:paused`;
}

/**
 * How long an account gets no new leases after its leases were recalled: it is at its limit, where
 * a lease could only strand slots again, and a minute covers a burst's tail.
 */
const LEASE_PAUSE_MS = 60_000;

/** Stops new leases for an account (before recalling the running ones, so none slip in between). */
export async function pauseLeases(redis: Redis, rateKey: string): Promise<void> {
  await redis.set(leasePauseKey(rateKey), "1", "PX", LEASE_PAUSE_MS);
}

/** Lua shared by the scripts: how many slots log entries stand for, and the log's count. */
const SLOTS_LUA = `
local function slotsOf(entry)
  local n = string.match(entry, '#(%d+)$')
  if n then return tonumber(n) end
  return 1
end
local function sumSlots(entries)
  local n = 0
  for _, entry in ipairs(entries) do n = n + slotsOf(entry) end
  return n
end
local function slotCount(log, countKey, store)
  local count = redis.call('GET', countKey)
  if count then return tonumber(count) end
  if redis.call('EXISTS', log) == 0 then return 0 end
  local n = sumSlots(redis.call('ZRANGE', log, 0, -1))
  if store then
    local ttl = redis.call('PTTL', log)
    if ttl > 0 then redis.call('SET', countKey, n, 'PX', ttl) else redis.call('SET', countKey, n) end
  end
  return n
end
`;

const SCRIPT = `${SLOTS_LUA}
-- KEYS: the log, the key's auth version, the keys' usage hash, the log's slot count, the lease pause.
local version = redis.call('GET', KEYS[2]) or '0'
if ARGV[4] ~= '*' and version ~= ARGV[4] then return {-1, 0, 0, version} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, limit, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[6])
local count = slotCount(KEYS[1], KEYS[4], true)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  count = redis.call('DECRBY', KEYS[4], sumSlots(expired))
end
-- The entry holding slot number need (oldest first), or nil and how many slots the log holds.
local function holding(need)
  local seen, from = 0, 0
  while true do
    local chunk = redis.call('ZRANGE', KEYS[1], from, from + 63, 'WITHSCORES')
    if #chunk == 0 then return nil, seen end
    for i = 1, #chunk, 2 do
      seen = seen + slotsOf(chunk[i])
      if seen >= need then return tonumber(chunk[i + 1]), seen end
    end
    from = from + 64
  end
end
local free = limit - count
local at
if free <= 0 then
  local seen
  at, seen = holding(count - limit + 1)
  if not at then
    -- The count ran ahead of the log (something other than these scripts removed entries, e.g. an
    -- operator resetting an account): the log is the truth.
    count = seen
    redis.call('SET', KEYS[4], count, 'KEEPTTL')
    free = limit - count
    if free <= 0 then at = holding(count - limit + 1) end
  end
end
if free <= 0 then
  -- Denied: a slot frees when the entry holding slot number count-limit+1 leaves the window, or
  -- sooner when a process hands back leased slots it did not use (leases end within leaseMs). The
  -- fifth value says whether any lease is still running, so the caller can recall them; after a
  -- recall (ARGV[10]) the running leases are used up, and only the window counts.
  local wait = at + window - now
  local leased = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local running = leased[2] and ARGV[10] ~= 'recalled'
  if running and tonumber(leased[2]) - now < wait then wait = tonumber(leased[2]) - now end
  return {0, 0, wait, version, running and 1 or 0}
end
local grant, score = 1, now
local want, threshold = tonumber(ARGV[7]), tonumber(ARGV[8])
if want > 1 and free > threshold and redis.call('EXISTS', KEYS[5]) == 0 then
  grant = math.min(want, free - threshold)
  score = now + leaseMs
elseif ARGV[9] == 'prefetch' then
  -- A prefetch serves no request now: near the limit it takes nothing.
  return {-2, free, 0, version}
end
-- The entry is logEntry(slotId, grant).
redis.call('ZADD', KEYS[1], score, ARGV[3] .. '#' .. grant)
redis.call('INCRBY', KEYS[4], grant)
redis.call('PEXPIRE', KEYS[1], window + leaseMs)
redis.call('PEXPIRE', KEYS[4], window + leaseMs)
redis.call('HSET', KEYS[3], ARGV[5], now)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {grant, free - grant, tonumber(oldest[2]) + window - now, version}
`;

/**
 * Hands back the unused slots of a lease: its entry now stands for the slots used (or goes), and
 * the count drops by the rest. An entry already gone (its window passed) has nothing to return.
 */
const HAND_BACK_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
-- The new entry goes in first: removing the only entry would delete the log and its expiry.
if tonumber(ARGV[3]) > 0 then redis.call('ZADD', KEYS[1], score, ARGV[2]) end
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], ARGV[4]) end
return 1
`;

/** The window's slots now (entries past the window that no call has removed yet do not count). */
const PEEK_SCRIPT = `${SLOTS_LUA}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cutoff = now - tonumber(ARGV[1])
local used = slotCount(KEYS[1], KEYS[2], false) - sumSlots(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff))
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if oldest[2] then return {used, tonumber(oldest[2]) + tonumber(ARGV[1]) - now} end
return {used, -1}
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
  /**
   * Only on a refusal: some process held a running lease, whose unused slots a recall would bring
   * back (see leaseRecalls.ts).
   */
  leasesRunning?: boolean;
}

export interface RateLimitCall {
  rateKey: string;
  authVersionKey: string;
  usageKey: string;
  limit: number;
  /**
   * Unique per call and generated by the server (never a client's request id: reusing one would
   * overwrite its own log entries instead of adding to them). Its log entry is `<slotId>#<slots>`.
   */
  slotId: string;
  keyId: string;
  /** The auth version the caller cached, or `*` to accept whatever is current. */
  expectedVersion: string;
  /** How many slots the caller would like to lease (1 = just this request). */
  want?: number;
  /** A background refill for requests still to come: lease or take nothing. */
  prefetch?: boolean;
  /** Asked again after a recall: running leases are used up, so `resetMs` ignores them. */
  recalled?: boolean;
}

/** What every Redis round trip for one key sends: all of a call but its per-call parts. */
export type KeyCall = Omit<RateLimitCall, "slotId" | "want" | "prefetch" | "recalled">;

type Reply = [number, number, number, string, number?];

/** Runs a script by its SHA; a restarted Redis has forgotten it, so then it is sent once in full. */
function scriptRunner(script: string) {
  const sha = new Bun.CryptoHasher("sha1").update(script).digest("hex");
  return async (redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).includes("NOSCRIPT")) throw error;
      return await redis.eval(script, keys.length, ...keys, ...args);
    }
  };
}

const runConsume = scriptRunner(SCRIPT);
const runHandBack = scriptRunner(HAND_BACK_SCRIPT);
const runPeek = scriptRunner(PEEK_SCRIPT);

export function createRateLimiter(redis: Redis, options: { windowMs?: number } = {}) {
  const windowMs = options.windowMs ?? WINDOW_MS;

  return async function consume(call: RateLimitCall): Promise<RateDecision> {
    const keys = [
      call.rateKey,
      call.authVersionKey,
      call.usageKey,
      slotCountKey(call.rateKey),
      leasePauseKey(call.rateKey),
    ];
    const args = [
      windowMs,
      call.limit,
      call.slotId,
      call.expectedVersion,
      call.keyId,
      LEASE_MS,
      call.want ?? 1,
      LEASE_THRESHOLD,
      call.prefetch ? "prefetch" : "",
      call.recalled ? "recalled" : "",
    ];
    const [code, remaining, resetMs, authVersion, running] = (await runConsume(redis, keys, args)) as Reply;
    const outcome = code >= 1 ? "allowed" : code === 0 ? "denied" : code === -1 ? "stale" : "skipped";
    return {
      outcome,
      limit: call.limit,
      granted: Math.max(0, code),
      remaining: Math.max(0, remaining),
      resetMs: Math.max(0, resetMs),
      authVersion,
      leasesRunning: running === 1,
    };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Returns the slots of a `granted`-slot round trip that were not used (all but `used`). */
export async function handBack(
  redis: Redis,
  rateKey: string,
  slotId: string,
  granted: number,
  used: number,
): Promise<void> {
  const keys = [rateKey, slotCountKey(rateKey)];
  await runHandBack(redis, keys, [logEntry(slotId, granted), logEntry(slotId, used), used, granted - used]);
}

/**
 * How many requests the window holds now, without taking one (the dashboard's read). Leased
 * slots count, as they do for the limit. `resetMs` is when the oldest leaves, or null when none.
 */
export async function peekUsage(
  redis: Redis,
  rateKey: string,
  windowMs = WINDOW_MS,
): Promise<{ used: number; resetMs: number | null }> {
  const [used, resetMs] = (await runPeek(redis, [rateKey, slotCountKey(rateKey)], [windowMs])) as [number, number];
  return { used, resetMs: resetMs < 0 ? null : resetMs };
}
