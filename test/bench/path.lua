-- GET BENCH_PATH with the key in BENCH_KEY (one key: the cached-lookup benches measure the route, not auth spread).
local path = os.getenv("BENCH_PATH") or "/api/v1/account"
local key = os.getenv("BENCH_KEY") or ""

request = function()
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. key })
end
