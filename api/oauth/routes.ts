import { createHash } from "node:crypto";
import { type DocumentDecoration, Elysia } from "elysia";
import { SCOPE_NAMES } from "../../shared/auth/scopes";
import type { Deps } from "../../shared/context/deps";
import { hitWindow } from "../../shared/ratelimit/windowCounter";
import { HTML, json, type ResponseDoc, requestBody, response } from "../openapi/media";
import { clientAddressOf } from "../plugins/clientAddress";
import { alignedAuthorization } from "./browserLogin";
import { oauthInteractionRoutes } from "./interaction";
import { type LazyOAuthServer, OAUTH_PATHS, type OAuthServer, PROVIDER_SCOPES } from "./provider";
import { REGISTRATION_LIMITS, registrationRefusal } from "./registrationPolicy";

/**
 * The authorization server's endpoints, answered by oidc-provider (provider.ts), and the protected
 * resource's metadata (RFC 9728), which is ours. The provider's CORS headers are dropped: the
 * API's own policy (api/plugins/cors.ts) already answers every origin.
 */
const TAGS = ["OAuth"];
/** RFC 6749's error body; the service's own refusals before the provider (validation) are its error body. */
const OAUTH_ERROR = {
  anyOf: [
    {
      type: "object",
      required: ["error"],
      properties: { error: { type: "string" }, error_description: { type: "string" } },
    },
    { $ref: "#/components/schemas/Error" },
  ],
};
const oauthError = (description: string) => response(description, json(OAUTH_ERROR));
const FORM = {
  "application/x-www-form-urlencoded": { schema: { type: "object", additionalProperties: { type: "string" } } },
};
const OBJECT = { type: "object", additionalProperties: true };
const redirect = (description: string) =>
  ({ description, headers: { Location: { schema: { type: "string" } } } }) as ResponseDoc;
const AUTHORIZE_RESPONSES = {
  200: response(
    "With `response_mode=form_post`: a page that posts the code (or error) to the client's redirect_uri.",
    HTML,
  ),
  303: redirect("To the sign-in and consent page, or back to the client's redirect_uri with a code or an error."),
  400: response("The request cannot go back to the client (unknown client or redirect_uri): an HTML error page.", HTML),
};

const DOCS: Record<string, DocumentDecoration> = {
  authorize: {
    tags: TAGS,
    summary: "OAuth authorization endpoint (authorization code with PKCE S256)",
    description:
      "Takes `response_type=code`, `client_id`, `redirect_uri`, `code_challenge` and `code_challenge_method=S256` (both required), `scope`, `state` and `resource` (the MCP endpoint's URL, RFC 8707). The `client_id` is a registered client's, or the https URL of a client ID metadata document, which is fetched (bounded, cached) and must describe a public client. Continues at the sign-in and consent page; the answer to the client carries `iss` (RFC 9207).",
    responses: AUTHORIZE_RESPONSES,
  },
  resume: {
    tags: TAGS,
    summary: "Where the consent page returns to finish an authorization",
    responses: AUTHORIZE_RESPONSES,
  },
  token: {
    tags: TAGS,
    summary: "OAuth token endpoint: authorization_code and refresh_token grants",
    description:
      "Refresh tokens rotate on every use; presenting a used one revokes the whole grant. Access tokens last an hour and are valid only at `/api/mcp`.",
    requestBody: requestBody(FORM),
    responses: {
      200: response("Tokens.", json(OBJECT)),
      400: oauthError("An OAuth error (`invalid_grant`, `invalid_request`, `invalid_target`, …)."),
      401: oauthError("`invalid_client`: the client did not authenticate as registered."),
    },
  },
  register: {
    tags: TAGS,
    summary: "Dynamic client registration (RFC 7591)",
    description: `Kept for clients that do not publish a client ID metadata document (MCP 2026-07-28 prefers those). Open, and bounded: at most ${REGISTRATION_LIMITS.bodyBytes} bytes of metadata, a \`client_name\` of ${REGISTRATION_LIMITS.nameCodePoints} characters, other texts of ${REGISTRATION_LIMITS.textCodePoints}, and ${REGISTRATION_LIMITS.redirectUris} redirect URIs, each \`https\`, \`http\` on loopback, or a native app's private-use scheme (RFC 8252). OAUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR registrations per client address per hour. A client that has not been granted anything a day after registering is deleted.`,
    requestBody: requestBody(json(OBJECT)),
    responses: {
      201: response(
        "The registered client, with its client_id (and a secret unless it registered as public).",
        json(OBJECT),
      ),
      400: oauthError("`invalid_client_metadata` or `invalid_redirect_uri`."),
      429: oauthError("Too many registrations from this address this hour (with Retry-After)."),
    },
  },
  revoke: {
    tags: TAGS,
    summary: "Token revocation (RFC 7009)",
    requestBody: requestBody(FORM),
    responses: {
      200: { description: "Revoked (also for a token that was not valid, as RFC 7009 says)." },
      400: oauthError("An OAuth error."),
      401: oauthError("`invalid_client`."),
    },
  },
  jwks: {
    tags: TAGS,
    summary: "The authorization server's public signing keys",
    responses: {
      200: response("A JSON Web Key Set.", { "application/jwk-set+json": { schema: OBJECT }, ...json(OBJECT) }),
    },
  },
  serverMetadata: {
    tags: TAGS,
    summary: "OAuth authorization server metadata (RFC 8414)",
    responses: { 200: response("The metadata.", json(OBJECT)) },
  },
  resourceMetadata: {
    tags: TAGS,
    summary: "OAuth protected resource metadata of the MCP endpoint (RFC 9728)",
    responses: { 200: response("The metadata.", json(OBJECT)) },
  },
};

/** The provider's answer without its CORS headers (ours are added to every response). */
async function forwarded(
  oauth: LazyOAuthServer,
  request: Request,
  path?: string,
  prepare?: (server: OAuthServer, request: Request) => Promise<Request>,
): Promise<Response> {
  const server = await oauth.get();
  const prepared = prepare ? await prepare(server, request) : request;
  const target = path ? new Request(new URL(path, prepared.url).href, prepared) : prepared;
  const answer = await server.forward(target);
  for (const name of [...answer.headers.keys()]) {
    if (name.startsWith("access-control-")) answer.headers.delete(name);
  }
  return answer;
}

/**
 * A registration's `scope` may list the MCP endpoint's scopes (the SDK copies the resource
 * metadata's): they are requested at authorization, not registered, so they are dropped here, as
 * RFC 7591 lets a server replace requested metadata. oidc-provider would refuse them, since a
 * client's registered scope may only name its own scopes.
 */
async function registration(request: Request): Promise<Request | Response> {
  const text = await request.text();
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  const metadata = parsedObject(text);
  const refusal = registrationRefusal(text, metadata);
  if (refusal) return Response.json(refusal, { status: 400, headers: { "cache-control": "no-store" } });
  if (typeof metadata?.scope === "string") {
    const own = metadata.scope.split(" ").filter((scope) => PROVIDER_SCOPES.includes(scope));
    if (own.length > 0) metadata.scope = own.join(" ");
    else delete metadata.scope;
    const body = (() => {
      try {
        return JSON.stringify(metadata);
      } catch {
        return text; // nested too deep to write back: the provider refuses it as sent
      }
    })();
    return new Request(request.url, { method: "POST", headers, body });
  }
  // Anything else goes on as sent, for the provider to accept or refuse.
  return new Request(request.url, { method: "POST", headers, body: text });
}

/** A JSON object's top level, or undefined for anything else (an array, a scalar, not JSON). */
function parsedObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function resourceMetadata(issuer: string, resource: string) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: SCOPE_NAMES,
    bearer_methods_supported: ["header"],
    resource_name: "Papers & Health MCP server",
    resource_documentation: `${issuer}/docs`,
  };
}

/**
 * The OAuth paths and the consent page, typed as a bare plugin: their routes add nothing a typed
 * client needs, and the app's type is at TypeScript's depth limit.
 */
export function oauthRoutes(deps: Deps, oauth: LazyOAuthServer): Elysia {
  return oauthRoutesTyped(deps, oauth).use(oauthInteractionRoutes(deps, oauth)) as unknown as Elysia;
}

function oauthRoutesTyped(deps: Deps, oauth: LazyOAuthServer) {
  const addressOf = clientAddressOf(deps.env);
  const forward = ({ request }: { request: Request }) => forwarded(oauth, request);
  // An authorization starts from the website's signed-in account (browserLogin.ts).
  const authorize = ({ request }: { request: Request }) =>
    forwarded(oauth, request, undefined, (server, request) => alignedAuthorization(server, deps, request));
  const metadata = async () => {
    const server = await oauth.get();
    return resourceMetadata(server.issuer, server.resource);
  };
  return new Elysia({ name: "routes/oauth" })
    .onStop(() => oauth.close())
    .get(OAUTH_PATHS.authorization, authorize, { detail: DOCS.authorize })
    .get(`${OAUTH_PATHS.authorization}/:uid`, forward, { detail: DOCS.resume })
    .post(OAUTH_PATHS.token, forward, { parse: "none", detail: DOCS.token })
    .post(
      OAUTH_PATHS.registration,
      async ({ request, server }) => {
        const address = createHash("sha256").update(addressOf(request, server)).digest("hex");
        await hitWindow(deps.redis, `${deps.env.REDIS_PREFIX}:oauth-register:${address}`, {
          max: deps.env.OAUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR,
          windowSeconds: 3600,
          message: (retryAfter) => `Too many client registrations from this address; retry in ${retryAfter} s.`,
        });
        const checked = await registration(request);
        return checked instanceof Response ? checked : forwarded(oauth, checked);
      },
      { parse: "none", detail: DOCS.register },
    )
    .post(OAUTH_PATHS.revocation, forward, { parse: "none", detail: DOCS.revoke })
    .get(OAUTH_PATHS.jwks, forward, { detail: DOCS.jwks })
    .get(
      "/.well-known/oauth-authorization-server",
      ({ request }) => forwarded(oauth, request, "/.well-known/openid-configuration"),
      { detail: DOCS.serverMetadata },
    )
    .get("/.well-known/openid-configuration", forward, {
      detail: { ...DOCS.serverMetadata, summary: "OpenID Connect discovery (the same metadata)" },
    })
    .get("/.well-known/oauth-protected-resource", metadata, { detail: DOCS.resourceMetadata })
    .get("/.well-known/oauth-protected-resource/api/mcp", metadata, { detail: DOCS.resourceMetadata });
}
