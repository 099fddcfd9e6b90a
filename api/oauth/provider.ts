import { generateKeyPairSync, randomBytes } from "node:crypto";
import type Provider from "oidc-provider";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import { findAccount } from "../../shared/auth/accounts";
import { createOAuthAdapter } from "../../shared/auth/oauth/adapter";
import { serverKeys } from "../../shared/auth/oauth/serverKeys";
import { SCOPE_NAMES } from "../../shared/auth/scopes";
import type { Deps } from "../../shared/context/deps";
import { publicUrl } from "../../shared/core/env";
import { bridgeToNode, type NodeBridge } from "./bridge";
import { websiteSession } from "./browserLogin";
import { clientMetadataConfiguration } from "./clientMetadata";
import { interactionErrorPage } from "./consentPage";

/**
 * The service is its own OAuth 2.1 authorization server (oidc-provider, an OpenID-certified
 * implementation: we write no token formats or crypto), for MCP clients that cannot be given an
 * API key. Its users are the website's accounts; sign-in and consent are our own page
 * (interaction.ts). Access tokens are opaque, bound to the MCP endpoint (RFC 8707), and checked
 * on every MCP request against the database, so a revocation counts from the next request.
 */
export const OAUTH_PATHS = {
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  registration: "/oauth/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
  userinfo: "/oauth/userinfo",
  introspection: "/oauth/introspect",
  end_session: "/oauth/logout",
  pushed_authorization_request: "/oauth/par",
  code_verification: "/oauth/device",
  device_authorization: "/oauth/device/auth",
  backchannel_authentication: "/oauth/backchannel",
  challenge: "/oauth/challenge",
  credential: "/oauth/credential",
} as const;

export const INTERACTION_PATH = "/oauth/interaction";
/**
 * The authorization server's own scopes (`offline_access` some clients add for a refresh token).
 * Ours belong to the resource and are declared there (getResourceServerInfo), or oidc-provider
 * would treat them as its own and never grant them for the MCP endpoint.
 */
export const PROVIDER_SCOPES = ["openid", "offline_access"];

const TTL = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  RefreshToken: 30 * 86_400,
  Interaction: 3600,
  Session: 14 * 86_400,
  Grant: 365 * 86_400,
  RegistrationAccessToken: 365 * 86_400,
};

/** What the provider reads of a request; the rest (ours, a proxy's) stays on this side of the bridge. */
const FORWARDED_HEADERS = [
  "accept",
  "accept-language",
  "authorization",
  "content-type",
  "cookie",
  "dpop",
  "origin",
  "user-agent",
];

export interface OAuthServer {
  issuer: string;
  /** The protected resource: the MCP endpoint's URL, the only audience tokens are issued for. */
  resource: string;
  provider: Provider;
  /** Hands a request for one of the provider's paths to it. */
  forward(request: Request): Promise<Response>;
  close(): Promise<void>;
}

function newKeys() {
  // RS256: what clients expect of ID tokens by default (only `openid` requests get one).
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = {
    ...privateKey.export({ format: "jwk" }),
    alg: "RS256",
    use: "sig",
    kid: randomBytes(8).toString("hex"),
  };
  return { jwks: { keys: [jwk] }, cookieKeys: [randomBytes(32).toString("base64url")] };
}

export async function startOAuthServer(deps: Deps): Promise<OAuthServer> {
  // Loaded on first use: an API that never sees OAuth never loads Koa (nor prints the library's
  // warning that it supports Node.js LTS only; the OAuth suites run it under Bun).
  const { default: Provider, errors, interactionPolicy } = await import("oidc-provider");
  const issuer = publicUrl(deps.env);
  const resource = `${issuer}/api/mcp`;
  const keys = await serverKeys(deps, newKeys());
  const { clientIdMetadataDocument, ...outbound } = clientMetadataConfiguration(deps, errors);
  const configuration: Configuration = {
    adapter: createOAuthAdapter(deps.sql),
    clients: [],
    ...outbound,
    async findAccount(_ctx, sub) {
      const account = await findAccount(deps, sub);
      return account ? { accountId: account.id, claims: async () => ({ sub: account.id }) } : undefined;
    },
    claims: { openid: ["sub"] },
    scopes: PROVIDER_SCOPES,
    responseTypes: ["code"],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Both ways for a client to be known: a client ID metadata document (clientMetadata.ts), which
      // MCP 2026-07-28 prefers, and dynamic registration, which it keeps (deprecated) for older clients.
      clientIdMetadataDocument,
      registration: { enabled: true },
      // A client revokes only what was issued to it (RFC 7009 section 2.1).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== resource) throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
          return {
            scope: SCOPE_NAMES.join(" "),
            audience: resource,
            accessTokenTTL: TTL.AccessToken,
            accessTokenFormat: "opaque",
          };
        },
      },
    },
    // Every client that may refresh gets a refresh token, offline_access or not; each use rotates
    // it, and a rotated one used again revokes the whole grant (oidc-provider's reuse detection).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    ttl: TTL,
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: websiteBoundPolicy(deps, interactionPolicy),
    },
    // A grant is used silently only for the account that made it.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? "");
      const grant = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      return grant && grant.accountId === ctx.oidc.session?.accountId ? grant : undefined;
    },
    cookies: { keys: keys.cookieKeys },
    jwks: keys.jwks as Configuration["jwks"],
    routes: OAUTH_PATHS,
    // Browser-based MCP clients (the Inspector) call the token and registration endpoints cross-origin.
    clientBasedCORS: () => true,
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = "html";
      ctx.body = interactionErrorPage(`${out.error}: ${out.error_description ?? "the request was refused"}`);
    },
  };
  const provider = new Provider(issuer, configuration);
  // The bridge forwards with X-Forwarded-Proto and Host set to the public URL's.
  provider.proxy = true;
  const bridge: NodeBridge = await bridgeToNode(provider.callback());
  const origin = new URL(issuer);
  return {
    issuer,
    resource,
    provider,
    forward(request) {
      const headers = new Headers();
      for (const name of FORWARDED_HEADERS) {
        const value = request.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      headers.set("host", origin.host);
      headers.set("x-forwarded-proto", origin.protocol.replace(":", ""));
      headers.set("x-forwarded-host", origin.host);
      return bridge.forward(request, headers);
    },
    close: () => bridge.close(),
  };
}

/**
 * oidc-provider's default prompts, with one more reason to ask for sign-in: the provider's login is
 * not the website session's account (or there is no website session). Its own login then never
 * issues a code on its own (browserLogin.ts ends such a login before the provider sees the request;
 * this check holds even if a request gets past that).
 */
function websiteBoundPolicy(deps: Deps, policy: typeof import("oidc-provider").interactionPolicy) {
  const prompts = policy.base();
  prompts.get("login")?.checks.push(
    new policy.Check(
      "website_session",
      "the website session is missing or belongs to another account",
      async (ctx: KoaContextWithOIDC) => {
        const web = await websiteSession(deps, ctx.get("cookie"));
        const same = web !== undefined && web.accountId === ctx.oidc.session?.accountId;
        return same ? policy.Check.NO_NEED_TO_PROMPT : policy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return prompts;
}

/** Started on first use (the database must be migrated by then) and shared by every route. */
export function lazyOAuthServer(deps: Deps) {
  let started: Promise<OAuthServer> | undefined;
  return {
    get: (): Promise<OAuthServer> => {
      started ??= startOAuthServer(deps).catch((error) => {
        started = undefined;
        throw error;
      });
      return started;
    },
    async close(): Promise<void> {
      const server = await started?.catch(() => undefined);
      await server?.close();
    },
  };
}

export type InteractionType = InstanceType<Provider["Interaction"]>;
export type LazyOAuthServer = ReturnType<typeof lazyOAuthServer>;
