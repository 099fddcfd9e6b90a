-- Shared by the rate-limit scripts, prepended to them when they are loaded (Lua has no includes).

-- Redis's clock in milliseconds: every API process shares it.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The slots a log entry `<slot_id>#<n>` stands for. An entry without `#<n>` was written when every
-- entry was one slot.
local function slots_of(entry)
  local n = string.match(entry, '#(%d+)$')
  if n then return tonumber(n) end
  return 1
end

local function sum_slots(entries)
  local n = 0
  for _, entry in ipairs(entries) do n = n + slots_of(entry) end
  return n
end

-- The slots the log holds, from the count beside it. A log without a count (written before entries
-- carried slot counts) is counted from its entries; `store` keeps that count, expiring with the log.
local function slot_count(log_key, count_key, store)
  local count = redis.call('GET', count_key)
  if count then return tonumber(count) end
  if redis.call('EXISTS', log_key) == 0 then return 0 end
  local n = sum_slots(redis.call('ZRANGE', log_key, 0, -1))
  if store then
    local ttl = redis.call('PTTL', log_key)
    if ttl > 0 then redis.call('SET', count_key, n, 'PX', ttl) else redis.call('SET', count_key, n) end
  end
  return n
end
