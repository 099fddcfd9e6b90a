import type { Feature } from "../../shared/auth/access";
import { type Authenticator, type Caller, setRateLimitHeaders } from "../../shared/auth/apiKeys";
import { authorizeNow } from "../../shared/auth/authorize";
import { AppError } from "../../shared/core/errors";
import type { PlanTable } from "../../shared/core/plans";
import { stateOf } from "../requestState";

/**
 * Which requests need an API key, and which need a plan feature. Checked before routing, body
 * parsing and validation, so an anonymous caller gets 401 (not 400 or 404) and every
 * authenticated request, valid or not, counts against the hourly limit.
 */
export interface AccessPolicy {
  prefix: string;
  exact?: boolean;
  /** Narrows `prefix` to the paths it matches. */
  pattern?: RegExp;
  methods?: string[];
  /**
   * The path's routes answer only `methods`: another method there has no policy, so anyone gets
   * 405 with `Allow` (a public path has no key to ask for first). Checked against the routes when
   * the app is assembled (routeTable.ts).
   */
  only?: boolean;
  feature?: Feature;
  /** Readable without a key (share links); on a session path: no session yet (sign-up, sign-in). */
  anonymous?: boolean;
  /**
   * `session`: a website path, authenticated by the session cookie (api/plugins/session.ts) and
   * never by an API key; the cookie counts nowhere else. Unset: an API key.
   */
  auth?: "session";
  /** A session path that does not spend the hourly limit (the website's own auth and dashboard). */
  uncounted?: boolean;
}

export const ACCESS_POLICIES: AccessPolicy[] = [
  { prefix: "/api/v1/shared/", methods: ["GET"], anonymous: true, only: true },
  // A health share link's page and FHIR download: the token is the capability (shared/sharing/open.ts).
  { prefix: "/share/", methods: ["GET"], anonymous: true, only: true },
  // The signed upload URL carries its own authorization (an HMAC signature), not an API key.
  {
    prefix: "/api/v1/uploads/",
    pattern: /^\/api\/v1\/uploads\/[^/]+\/content$/,
    methods: ["PUT"],
    anonymous: true,
    only: true,
  },
  { prefix: "/api/v1/uploads/", feature: "health" },
  { prefix: "/api/v1/health/", feature: "health" },
  { prefix: "/api/v1/transcribe", exact: true, feature: "health" },
  { prefix: "/api/v1/" },
  // GET and DELETE on the MCP endpoint are 405 for everyone; only POST carries JSON-RPC.
  { prefix: "/api/mcp", exact: true, methods: ["POST"] },
  // The website: its own endpoints, then the v1 mirrors (same features, same hourly limit).
  { prefix: "/api/auth/signup", exact: true, methods: ["POST"], auth: "session", anonymous: true, only: true },
  { prefix: "/api/auth/signin", exact: true, methods: ["POST"], auth: "session", anonymous: true, only: true },
  { prefix: "/api/auth/", auth: "session", uncounted: true },
  { prefix: "/api/dashboard/", auth: "session", uncounted: true },
  { prefix: "/api/uploads/", auth: "session", feature: "health" },
  { prefix: "/api/health/", auth: "session", feature: "health" },
  { prefix: "/api/transcribe", exact: true, auth: "session", feature: "health" },
  { prefix: "/api/chats", exact: true, auth: "session" },
  { prefix: "/api/chats/", auth: "session" },
  { prefix: "/api/models", exact: true, auth: "session" },
];

export function coversPath(policy: AccessPolicy, path: string): boolean {
  if (policy.exact ? path !== policy.prefix : !path.startsWith(policy.prefix)) return false;
  return !policy.pattern || policy.pattern.test(path);
}

export function policyFor(method: string, path: string): AccessPolicy | undefined {
  if (method === "OPTIONS") return undefined;
  // HEAD is GET without the body: the same policy.
  const asked = method === "HEAD" ? "GET" : method;
  for (const policy of ACCESS_POLICIES) {
    if (!coversPath(policy, path)) continue;
    if (!policy.methods || policy.methods.includes(asked)) return policy;
    if (policy.only) return undefined;
  }
  return undefined;
}

/**
 * The key from `Authorization: Bearer <key>` or `x-api-key: <key>`. Both may be sent only with the
 * same key (two different keys are refused). An Authorization header with another scheme (Basic for
 * a proxy in front, say) is not ours: ignored when x-api-key carries the key, a 401 when it is the
 * only credential. A malformed Bearer header is a 401 even next to x-api-key: it claims to be a key.
 */
export function credentialFrom(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  const apiKey = headers.get("x-api-key")?.trim() || undefined;
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (authorization && !bearer) {
    if (apiKey && !/^Bearer(\s|$)/i.test(authorization)) return apiKey;
    throw new AppError("UNAUTHORIZED", "The Authorization header must be `Bearer <API key>`.");
  }
  if (bearer && apiKey && bearer !== apiKey) {
    throw new AppError("UNAUTHORIZED", "Authorization and x-api-key carry different keys; send one.", {
      headers: { "www-authenticate": `${API_KEY_CHALLENGE}, error="invalid_request"` },
    });
  }
  return bearer ?? apiKey;
}

/** The challenge of a 401 for an API key (RFC 6750); the realm names this service, not a deployment. */
export const API_KEY_CHALLENGE = 'Bearer realm="papers-health"';
/**
 * A website path takes no key, so a Bearer challenge there would send clients the wrong way. Its
 * challenge names the sign-in endpoint and the cookie, in the form of the cookie scheme draft
 * (draft-broyer-http-cookie-auth); browsers show no dialog for it (they prompt for Basic only).
 */
export const SESSION_CHALLENGE =
  'Cookie realm="papers-health-website", form-action="/api/auth/signin", cookie-name="sid"';
/** /metrics has its own bearer token (METRICS_TOKEN), so its own protection space. */
const METRICS_CHALLENGE = 'Bearer realm="papers-health-metrics"';

/**
 * The `WWW-Authenticate` of a 401 (RFC 9110 requires one on every 401), by the credential the path
 * takes. A key that was sent and refused adds `error="invalid_token"` (RFC 6750 §3.1); a request
 * without one gets the bare challenge.
 */
export function authChallenge(request: Request): string {
  const path = pathOf(request.url);
  if (path === "/metrics") return METRICS_CHALLENGE;
  if (policyFor(request.method, path)?.auth === "session") return SESSION_CHALLENGE;
  const sent = request.headers.has("x-api-key") || /^Bearer(\s|$)/i.test(request.headers.get("authorization") ?? "");
  return sent ? `${API_KEY_CHALLENGE}, error="invalid_token"` : API_KEY_CHALLENGE;
}

/** The path of a request URL, without query and trailing slash (Elysia routes `/x/` like `/x`). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return withoutTrailingSlash(end === -1 ? url.slice(start) : url.slice(start, end));
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/**
 * `pathOf` in a request hook, given the hook context's `path`: Elysia's compiled handler has
 * already cut it from the URL (its hook types leave it out, hence `unknown`). Reusing it spares
 * reading `request.url`, which builds a new string on every read, and cutting it again. Read it as
 * `context.path`: a hook that hands its whole context to a function makes Elysia build every
 * optional part of the context for every request.
 */
export function hookPath(path: unknown, request: Request): string {
  return typeof path === "string" ? withoutTrailingSlash(path) : pathOf(request.url);
}

/** What a request hook's context holds beyond its type: the path Elysia cut from the URL. */
export type HookContext = { path?: unknown };

/** The response headers an admission step may set. */
export type HeaderBag = Record<string, unknown>;

/**
 * Authenticates a request that needs an API key and takes its rate-limit slot (a step of the
 * admission hook, for policies without `auth: "session"`). A cached key with a leased slot left is
 * admitted at once; only a lookup or a Redis round trip returns a promise to wait for.
 */
export function keyAdmission(authenticator: Authenticator, plans: PlanTable) {
  const admit = (request: Request, headers: HeaderBag, policy: AccessPolicy, caller: Caller): void => {
    const state = stateOf(request);
    state.principal = caller.principal;
    state.rate = caller.rate;
    setRateLimitHeaders(headers, caller.rate);
    authorizeNow({ plans, plan: caller.principal.plan }, { feature: policy.feature });
  };
  return (request: Request, headers: HeaderBag, policy: AccessPolicy): Promise<void> | undefined => {
    const credential = credentialFrom(request.headers);
    const leased = authenticator.authorizeLeased(credential);
    if (leased) {
      admit(request, headers, policy, leased);
      return undefined;
    }
    return authenticator.authorize(credential).then((caller) => admit(request, headers, policy, caller));
  };
}
