import { codePoints } from "../../shared/core/text";

/**
 * What dynamic client registration (RFC 7591) accepts beyond oidc-provider's own checks. Registration
 * is open, as MCP clients expect, so each registration is bounded: its size, its name, its redirect
 * URIs (and registrations per client address per hour, routes.ts). Clients that never receive a
 * grant are swept after a day (shared/auth/oauth/sweep.ts).
 */
export const REGISTRATION_LIMITS = {
  bodyBytes: 16_384,
  nameCodePoints: 200,
  textCodePoints: 2_000,
  redirectUris: 10,
} as const;

export interface RegistrationRefusal {
  error: "invalid_client_metadata" | "invalid_redirect_uri";
  error_description: string;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A redirect URI this server sends codes to: `https`, `http` on loopback only (OAuth 2.1, RFC 8252
 * section 7.3: native apps listening on a local port), or a native app's private-use scheme in
 * reverse-domain form (`com.example.app:/cb`, `cursor://…`, RFC 8252 section 7.1). Schemes a browser
 * runs or reads locally (`javascript:`, `data:`, `file:`, `blob:`) and plain `http` elsewhere are refused.
 */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "a redirect URI must be a string";
  if (codePoints(value) > REGISTRATION_LIMITS.textCodePoints) {
    return `a redirect URI may have at most ${REGISTRATION_LIMITS.textCodePoints} characters`;
  }
  const uri = URL.parse(value);
  if (!uri) return `${JSON.stringify(value)} is not an absolute URI`;
  const scheme = uri.protocol.slice(0, -1).toLowerCase();
  if (scheme === "https") return undefined;
  if (scheme === "http") {
    return LOOPBACK.has(uri.hostname)
      ? undefined
      : "plain http is allowed only on loopback (localhost, 127.0.0.1, [::1])";
  }
  if (["javascript", "data", "file", "blob", "about", "vbscript", "ftp", "ws", "wss"].includes(scheme)) {
    return `the ${scheme}: scheme cannot be a redirect URI`;
  }
  // RFC 8252 section 7.1: a private-use scheme names a domain the app's author controls, reversed.
  if (!scheme.includes(".") && !KNOWN_APP_SCHEMES.has(scheme)) {
    return `a native app's scheme must be in reverse-domain form (e.g. com.example.app:/callback), not ${scheme}:`;
  }
  return undefined;
}

/** Desktop MCP clients that register a bare scheme of their own. */
const KNOWN_APP_SCHEMES = new Set(["cursor", "vscode", "vscode-insiders", "windsurf", "claude"]);

/** Why the registration's metadata is refused, or undefined. `text` is the body as sent. */
export function registrationRefusal(
  text: string,
  metadata: Record<string, unknown> | undefined,
): RegistrationRefusal | undefined {
  const refuse = (error_description: string, error: RegistrationRefusal["error"] = "invalid_client_metadata") => ({
    error,
    error_description,
  });
  if (Buffer.byteLength(text) > REGISTRATION_LIMITS.bodyBytes) {
    return refuse(`the metadata may be at most ${REGISTRATION_LIMITS.bodyBytes} bytes`);
  }
  if (!metadata) return undefined; // not a JSON object: oidc-provider refuses it as sent
  for (const [field, value] of Object.entries(metadata)) {
    const limit = field.startsWith("client_name")
      ? REGISTRATION_LIMITS.nameCodePoints
      : REGISTRATION_LIMITS.textCodePoints;
    if (typeof value === "string" && codePoints(value) > limit) {
      return refuse(`${field} may have at most ${limit} characters`);
    }
  }
  const uris = metadata.redirect_uris;
  if (Array.isArray(uris)) {
    if (uris.length > REGISTRATION_LIMITS.redirectUris) {
      return refuse(`at most ${REGISTRATION_LIMITS.redirectUris} redirect URIs`, "invalid_redirect_uri");
    }
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) return refuse(problem, "invalid_redirect_uri");
    }
  }
  return undefined;
}
