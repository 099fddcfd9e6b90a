import { readFileSync } from "node:fs";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import type { Deps } from "../../shared/context/deps";
import { guardedFetch, OutboundRefused } from "../../shared/core/outboundFetch";
import { REGISTRATION_LIMITS, registrationRefusal } from "./registrationPolicy";

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, oidc-provider's
 * `clientIdMetadataDocument` feature): a client whose `client_id` is an https URL is described by
 * the JSON document at that URL, so it needs no registration. MCP 2026-07-28 prefers this to dynamic
 * registration, which stays. Fetching the document is a request to a URL the client chose, so it
 * goes through the outbound guard (shared/core/outboundFetch.ts), like every other request the
 * provider makes; the document must then pass the registration policy a registered client does.
 */
export const CLIENT_METADATA_LIMITS = {
  /**
   * A document may be as large as a registration's body; so may anything else the provider fetches
   * (a registered client's jwks_uri or sector_identifier_uri: a dozen keys, a list of URIs).
   */
  maxBytes: REGISTRATION_LIMITS.bodyBytes,
  /**
   * How long a fetched document is used before it is fetched again: its Cache-Control max-age (or
   * Expires) within these bounds, the minimum without either. In-process (oidc-provider's LRU of 100).
   */
  cacheSeconds: { min: 300, max: 86_400 },
  /**
   * How long a failed fetch (refused, unreachable, too slow, too large, not 200) is remembered and
   * answered without fetching again: oidc-provider looks a client up a second time when an
   * authorization fails, and a failing URL must not cost a request (or a timeout) per attempt.
   */
  failureSeconds: 30,
  failuresRemembered: 1000,
} as const;

type ProviderErrors = typeof import("oidc-provider").errors;
type Fetch = NonNullable<Configuration["fetch"]>;

/** Recent failures by URL, oldest first (a Map keeps insertion order). */
function failureMemory() {
  const failures = new Map<string, { until: number; reason: string }>();
  return {
    recall(url: string): string | undefined {
      const failure = failures.get(url);
      if (failure && failure.until > Date.now()) return failure.reason;
      failures.delete(url);
      return undefined;
    },
    remember(url: string, reason: string) {
      failures.delete(url);
      failures.set(url, { until: Date.now() + CLIENT_METADATA_LIMITS.failureSeconds * 1000, reason });
      for (const oldest of failures.keys()) {
        if (failures.size <= CLIENT_METADATA_LIMITS.failuresRemembered) break;
        failures.delete(oldest);
      }
    },
  };
}

/** The provider's `fetch`, through the guard; each failure is logged with its reason and remembered. */
function providerFetch(deps: Deps): Fetch {
  const { env } = deps;
  const fetchGuarded = guardedFetch({
    timeoutMs: env.OAUTH_FETCH_TIMEOUT_MS,
    maxBytes: CLIENT_METADATA_LIMITS.maxBytes,
    // Checked at boot too (env.ts); repeated so an Env built in code cannot switch it on in production.
    allowLoopback: env.OAUTH_FETCH_ALLOW_LOOPBACK && env.NODE_ENV !== "production",
    extraCa: env.OAUTH_FETCH_CA_FILE ? readFileSync(env.OAUTH_FETCH_CA_FILE, "utf8") : undefined,
  });
  const failures = failureMemory();
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const known = failures.recall(url);
    if (known) throw new OutboundRefused(`${known} (a recent attempt)`);
    // oidc-provider sets a fixed 2.5 s signal on every request; OAUTH_FETCH_TIMEOUT_MS is the limit here.
    const { signal: _fixed, ...rest } = init;
    const fail = (reason: string) => {
      failures.remember(url, reason);
      deps.log.warn("oauth outbound fetch failed", { url, reason });
    };
    try {
      const response = await fetchGuarded(url, rest);
      if (response.status !== 200) fail(`answered HTTP ${response.status}`);
      return response;
    } catch (error) {
      fail(error instanceof OutboundRefused ? error.message : String(error));
      throw error;
    }
  };
}

/**
 * The draft's rules oidc-provider leaves to us: the URL has a path (not just an origin); the client
 * is public (no client authentication, so nothing to keep secret in a public document); and its
 * metadata passes the same policy as a registration (texts, redirect URIs).
 */
function clientMetadataPolicy(errors: ProviderErrors) {
  return {
    async allowFetch(_ctx: KoaContextWithOIDC, clientId: string) {
      const url = new URL(clientId);
      if (url.pathname === "/" || url.pathname === "") {
        throw new errors.InvalidClient("a client_id metadata document URL must have a path");
      }
      return true;
    },
    async allowClient(_ctx: KoaContextWithOIDC, client: { metadata(): Record<string, unknown> }) {
      const metadata = client.metadata();
      if (metadata.token_endpoint_auth_method !== "none") {
        throw new errors.InvalidClientMetadata(
          "a client_id metadata document must declare token_endpoint_auth_method none",
        );
      }
      const refusal = registrationRefusal(JSON.stringify(metadata), metadata);
      if (refusal) throw new errors.InvalidClientMetadata(refusal.error_description);
      return true;
    },
  };
}

/** The provider configuration for client ID metadata documents and outbound requests. */
export function clientMetadataConfiguration(
  deps: Deps,
  errors: ProviderErrors,
): Pick<Configuration, "fetch" | "fetchResponseBodyLimits"> & {
  clientIdMetadataDocument: NonNullable<NonNullable<Configuration["features"]>["clientIdMetadataDocument"]>;
} {
  return {
    fetch: providerFetch(deps),
    // The guard already holds every body to maxBytes; the provider's own limits (5 KiB for a
    // document, none for the rest) are set to the same so there is one number.
    fetchResponseBodyLimits: {
      "client_id metadata document": CLIENT_METADATA_LIMITS.maxBytes,
      jwks_uri: CLIENT_METADATA_LIMITS.maxBytes,
      sector_identifier_uri: CLIENT_METADATA_LIMITS.maxBytes,
    },
    clientIdMetadataDocument: {
      enabled: true,
      ack: "draft-02",
      cacheDuration: CLIENT_METADATA_LIMITS.cacheSeconds,
      ...clientMetadataPolicy(errors),
    },
  };
}
