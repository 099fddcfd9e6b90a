-- POST BENCH_BODY (one JSON-RPC message) to the path of the URL, with the key in BENCH_KEY and the
-- headers the MCP streamable HTTP transport requires (JSON body; Accept naming both answer types).
local body = os.getenv("BENCH_BODY")
local key = os.getenv("BENCH_KEY") or ""

request = function()
  return wrk.format("POST", "/api/mcp", {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
  }, body)
end
