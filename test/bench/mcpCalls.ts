/** What a 2026-07-28 client puts in each request's `_meta`, and the headers that mirror it (MCP benches). */
export const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
export const MODERN_HEADERS = {
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "search_papers_by_title",
};
