-- POST BENCH_BODY (one JSON-RPC message) to the path of the URL, with the key in BENCH_KEY and the
-- headers the MCP streamable HTTP transport requires (JSON body; Accept naming both answer types).
-- BENCH_MCP_METHOD / BENCH_MCP_NAME: a 2026-07-28 request's headers (protocol version, Mcp-Method,
-- Mcp-Name), which must match the body's envelope.
local body = os.getenv("BENCH_BODY")
local key = os.getenv("BENCH_KEY") or ""
local method = os.getenv("BENCH_MCP_METHOD")
local name = os.getenv("BENCH_MCP_NAME")

local headers = {
  ["Authorization"] = "Bearer " .. key,
  ["Content-Type"] = "application/json",
  ["Accept"] = "application/json, text/event-stream",
}
if method then
  headers["MCP-Protocol-Version"] = "2026-07-28"
  headers["Mcp-Method"] = method
  headers["Mcp-Name"] = name
end

request = function()
  return wrk.format("POST", "/api/mcp", headers, body)
end
