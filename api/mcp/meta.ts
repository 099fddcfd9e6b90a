/**
 * `_meta` keys this server adds to its listings (MCP reserves unprefixed keys and the
 * modelcontextprotocol/mcp prefixes; ours carries the server's own name).
 */
/** A tool's or resource template's one OAuth scope. */
export const SCOPE_META = "io.github.papers-health/scope";
/** Every OAuth scope a prompt needs. */
export const SCOPES_META = "io.github.papers-health/scopes";
