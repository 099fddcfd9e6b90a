-- Cycles through the requests in BENCH_REQUESTS: one per line, "METHOD<TAB>PATH<TAB>BODY".
-- Every request carries BENCH_AUTH as its Authorization header and a JSON content type.
local requests = {}
local n = 0
local auth = os.getenv("BENCH_AUTH")
-- Meilisearch answers keep-alive requests with headers and body in separate segments, and the body
-- then waits ~40 ms on the client's delayed ACK; the API's own client avoids keep-alive for that
-- reason, so the raw baseline does too.
local close = os.getenv("BENCH_CLOSE") == "1"

-- Formatted in init, per thread: at load time wrk has not set the Host header yet.
init = function(args)
  for line in io.lines(os.getenv("BENCH_REQUESTS")) do
    local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = { ["Authorization"] = auth, ["Content-Type"] = "application/json" }
    if close then headers["Connection"] = "close" end
    if body == "" then body = nil end
    table.insert(requests, wrk.format(method, path, headers, body))
  end
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
