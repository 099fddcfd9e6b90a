-- Cycles through the requests in BENCH_REQUESTS: one per line, "METHOD<TAB>PATH<TAB>BODY".
-- Every request carries BENCH_AUTH as its Authorization header and a JSON content type.
local requests = {}
local n = 0
local auth = os.getenv("BENCH_AUTH")
-- Connections are kept alive, like the API's own connections to Meilisearch. wrk sends no
-- Accept-Encoding, so Meilisearch answers uncompressed, as it does to the API (which asks for
-- `identity`): compressed answers cost Meilisearch twice the CPU and stall on keep-alive.

-- Each thread starts at its own share of the list (BENCH_THREADS of them), so a list of requests
-- that must not repeat (the cache bench's unique mix) is not sent once per thread.
local threads = 0
setup = function(thread)
  thread:set("offset", threads)
  threads = threads + 1
end

-- Formatted in init, per thread: at load time wrk has not set the Host header yet.
init = function(args)
  for line in io.lines(os.getenv("BENCH_REQUESTS")) do
    local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = { ["Authorization"] = auth, ["Content-Type"] = "application/json" }
    if body == "" then body = nil end
    table.insert(requests, wrk.format(method, path, headers, body))
  end
  n = (offset or 0) * math.floor(#requests / tonumber(os.getenv("BENCH_THREADS") or "2"))
end

request = function()
  n = n + 1
  return requests[(n % #requests) + 1]
end

-- The first non-2xx answer of each thread is printed, so a broken setup shows why.
local reported = false
response = function(status, headers, body)
  if status >= 300 and not reported then
    reported = true
    io.stderr:write("non-2xx " .. status .. ": " .. string.sub(body or "", 1, 300) .. "\n")
  end
end
