-- Checks the caller's auth version and takes slots from the account's sliding-window log (the design
-- is described in limiter.ts). Needs slots.lua prepended.
-- Returns {outcome, granted, remaining, reset_ms, auth_version, leases_running}:
--   'allowed'  granted slots (1, or more for a lease) were logged
--   'denied'   at the limit; reset_ms is when to ask again, leases_running 1 if a recall could help
--   'stale'    the caller's cached auth version is out of date; nothing was counted
--   'skipped'  a prefetch found too few free slots to lease; nothing was counted

-- All keys are the account's (one hash tag: one slot on a cluster).
local log_key = KEYS[1]     -- sorted set of entries `<slot_id>#<n>`, scored with when their n slots count from
local version_key = KEYS[2] -- the API key's auth version, bumped on revocation or plan change
local count_key = KEYS[3]   -- how many slots the log's entries stand for
local pause_key = KEYS[4]   -- exists while the account's leases are paused (after a recall)

local window_ms = tonumber(ARGV[1])       -- the sliding window's length
local limit = tonumber(ARGV[2])           -- slots allowed in any window
local slot_id = ARGV[3]                   -- unique per call: names this call's log entry
local expected_version = ARGV[4]          -- the auth version the caller cached, or ANY_VERSION
local lease_ms = tonumber(ARGV[5])        -- how long a process may spend leased slots
local want = tonumber(ARGV[6])            -- slots the caller would like (1: just this request)
local lease_threshold = tonumber(ARGV[7]) -- leases only while more slots than this are free
local prefetch = ARGV[8] == '1'           -- a background refill for requests still to come
local recalled = ARGV[9] == '1'           -- asked again after a complete recall of the account's leases

-- The caller has no cached auth version to check (a website session): whatever is current will do.
local ANY_VERSION = '*'

-- Removes the entries that left the window; returns how many slots the log holds now.
local function drop_expired(now)
  local count = slot_count(log_key, count_key, true)
  local expired = redis.call('ZRANGEBYSCORE', log_key, '-inf', now - window_ms)
  if #expired > 0 then
    redis.call('ZREMRANGEBYSCORE', log_key, '-inf', now - window_ms)
    count = redis.call('DECRBY', count_key, sum_slots(expired))
  end
  return count
end

-- The score of the entry holding slot number `need` (oldest first), or nil and the slots the log holds.
local function holding(need)
  local seen, from = 0, 0
  while true do
    local chunk = redis.call('ZRANGE', log_key, from, from + 63, 'WITHSCORES')
    if #chunk == 0 then return nil, seen end
    for i = 1, #chunk, 2 do
      seen = seen + slots_of(chunk[i])
      if seen >= need then return tonumber(chunk[i + 1]), seen end
    end
    from = from + 64
  end
end

-- The free slots; when there are none, also the score of the entry whose leaving frees one.
local function free_slots(count)
  local free = limit - count
  if free > 0 then return free end
  local at, seen = holding(count - limit + 1)
  if at then return free, at end
  -- The count ran ahead of the log (something other than these scripts removed entries, e.g. an
  -- operator resetting an account): the log is the truth.
  redis.call('SET', count_key, seen, 'KEEPTTL')
  free = limit - seen
  if free > 0 then return free end
  return free, (holding(seen - limit + 1))
end

-- How long a denied caller waits, and whether a lease is still running. A slot frees when the entry
-- at `at` leaves the window, or sooner when a running lease ends and hands back its unused slots
-- (leases are logged at their end, so a running one scores after now). After a recall the running
-- leases are used up: only the window counts.
local function denial(at, now)
  local wait = at + window_ms - now
  local leased = redis.call('ZRANGEBYSCORE', log_key, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local running = leased[2] ~= nil and not recalled
  if running and tonumber(leased[2]) - now < wait then wait = tonumber(leased[2]) - now end
  return wait, running
end

-- How many slots to grant and the score they count from: a lease, logged at its end, while enough
-- are free and leases are not paused; else one slot now. Nil for a prefetch: it serves no request
-- now, so near the limit it takes nothing.
local function grant_size(free, now)
  if want > 1 and free > lease_threshold and redis.call('EXISTS', pause_key) == 0 then
    return math.min(want, free - lease_threshold), now + lease_ms
  end
  if prefetch then return nil end
  return 1, now
end

-- Logs the grant as one entry (limiter.ts's logEntry); returns when the oldest entry leaves the window.
local function record(grant, score, now)
  redis.call('ZADD', log_key, score, slot_id .. '#' .. grant)
  redis.call('INCRBY', count_key, grant)
  redis.call('PEXPIRE', log_key, window_ms + lease_ms)
  redis.call('PEXPIRE', count_key, window_ms + lease_ms)
  local oldest = redis.call('ZRANGE', log_key, 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window_ms - now
end

local version = redis.call('GET', version_key) or '0'
if expected_version ~= ANY_VERSION and version ~= expected_version then
  return {'stale', 0, 0, 0, version, 0}
end
local now = now_ms()
local free, at = free_slots(drop_expired(now))
if free <= 0 then
  local wait, running = denial(at, now)
  return {'denied', 0, 0, wait, version, running and 1 or 0}
end
local grant, score = grant_size(free, now)
if not grant then return {'skipped', 0, free, 0, version, 0} end
local reset_ms = record(grant, score, now)
return {'allowed', grant, free - grant, reset_ms, version, 0}
