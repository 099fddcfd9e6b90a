-- How many slots the window holds now, without taking any: entries past the window that no call has
-- removed yet do not count, and nothing is written. Needs slots.lua prepended.
-- Returns {used, reset_ms}, reset_ms being when the oldest entry leaves; just {used} when none does.

local log_key = KEYS[1]   -- the account's sliding-window log
local count_key = KEYS[2] -- how many slots the log's entries stand for

local window_ms = tonumber(ARGV[1]) -- the sliding window's length

local now = now_ms()
local cutoff = now - window_ms
local count = slot_count(log_key, count_key, false)
local used = count - sum_slots(redis.call('ZRANGEBYSCORE', log_key, '-inf', cutoff))
local oldest = redis.call('ZRANGEBYSCORE', log_key, '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if oldest[2] then return {used, tonumber(oldest[2]) + window_ms - now} end
return {used}
