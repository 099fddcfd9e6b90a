/**
 * MCP protocol versions we serve, newest first. 2026-07-28 is the per-request era (no
 * `initialize`; each request carries its version in `_meta`); the rest are the 2025 era, served
 * statelessly after an `initialize`. The spec names 2025-06-15, which no SDK release knows: it is
 * listed here, so the SDK's server negotiates it and its transport accepts its header.
 */
export const PROTOCOL_VERSIONS = [
  "2026-07-28",
  "2025-11-25",
  "2025-06-18",
  "2025-06-15",
  "2025-03-26",
  "2024-11-05",
] as const;
export const MODERN_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];
/** Newest 2025-era version: what an `initialize` asking for one we do not speak is answered with. */
export const NEWEST_LEGACY_VERSION = PROTOCOL_VERSIONS[1];
/** The 2025-era versions, which `initialize` negotiates. */
export const LEGACY_VERSIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS.slice(1));
