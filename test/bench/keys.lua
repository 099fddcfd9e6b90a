-- Rotates the Authorization header over the keys in BENCH_KEYS (comma-separated).
local keys = {}
local n = 0
for key in string.gmatch(os.getenv("BENCH_KEYS") or "", "[^,]+") do table.insert(keys, key) end

request = function()
  n = n + 1
  return wrk.format("GET", "/api/v1/account", { ["Authorization"] = "Bearer " .. keys[(n % #keys) + 1] })
end
