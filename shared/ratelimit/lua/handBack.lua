-- Hands back the unused slots of a lease: its entry now stands for the slots used (or goes), and the
-- count drops by the rest. Returns 'handed back', or 'gone' when the entry has already left the window
-- (or was handed back before): then there is nothing to return.

local log_key = KEYS[1]   -- the account's sliding-window log
local count_key = KEYS[2] -- how many slots the log's entries stand for

local leased_entry = ARGV[1]   -- the lease's entry, `<slot_id>#<granted>`
local used_entry = ARGV[2]     -- what it becomes, `<slot_id>#<used>`
local used = tonumber(ARGV[3]) -- slots of the lease that were used
local unused = ARGV[4]         -- slots handed back

local score = redis.call('ZSCORE', log_key, leased_entry)
if not score then return 'gone' end
-- The new entry goes in first: removing the only entry would delete the log and its expiry.
if used > 0 then redis.call('ZADD', log_key, score, used_entry) end
redis.call('ZREM', log_key, leased_entry)
-- Without a count the next call recounts the log, which already lacks these slots.
if redis.call('EXISTS', count_key) == 1 then redis.call('DECRBY', count_key, unused) end
return 'handed back'
