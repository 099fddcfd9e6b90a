import { setRateLimitHeaders } from "../../shared/auth/apiKeys";
import { authorize } from "../../shared/auth/authorize";
import {
  createWebCharger,
  csrfMatches,
  resolveSession,
  WEB_SESSION_KEY_ID,
  type WebSession,
} from "../../shared/auth/webSessions";
import type { Deps } from "../../shared/context/deps";
import { publicUrl } from "../../shared/core/env";
import { AppError } from "../../shared/core/errors";
import { stateOf } from "../requestState";
import type { AccessPolicy, HeaderBag } from "./access";

export const SESSION_COOKIE = "sid";
const SAFE_METHODS = new Set(["GET", "HEAD"]);
const sessions = new WeakMap<Request, WebSession>();

/** The session of a website request; only routes behind a session policy may ask. */
export function sessionOf(request: Request): WebSession {
  const session = sessions.get(request);
  if (!session) throw new AppError("UNAUTHORIZED", "Sign in first.");
  return session;
}

/** The value of one cookie in a Cookie header (the first, if a browser sent it twice). */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** `Set-Cookie` for a session: HttpOnly, SameSite=Lax, Secure unless WEB_COOKIE_SECURE=false. */
export function sessionCookie(env: Deps["env"], token: string, maxAgeSeconds: number): string {
  const secure = env.WEB_COOKIE_SECURE ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secure}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
}

export function clearedSessionCookie(env: Deps["env"]): string {
  return sessionCookie(env, "", 0);
}

/**
 * Sign-up and sign-in have no session (so no CSRF token) yet: a browser's Origin header must name
 * this site. Non-browser clients send none and are let through; they cannot ride a user's cookies.
 */
function requireSameOrigin(request: Request, env: Deps["env"]): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  const allowed = new Set([new URL(request.url).origin, new URL(publicUrl(env)).origin]);
  if (!allowed.has(origin)) throw new AppError("CSRF_FAILED", "Sign-in is only accepted from this site's own pages.");
}

/**
 * Website authentication (a step of the admission hook, for policies with `auth: "session"`):
 * resolves the `sid` cookie to a principal (an API key is not accepted there, a cookie nowhere
 * else), enforces the CSRF header on every non-GET, and charges the v1 mirrors to the same hourly
 * limit.
 */
export function sessionAdmission(deps: Deps) {
  const charge = createWebCharger(deps.redis, deps.env.REDIS_PREFIX, deps.plans);
  return async (request: Request, headers: HeaderBag, policy: AccessPolicy): Promise<void> => {
    if (policy.anonymous) return requireSameOrigin(request, deps.env);
    const token = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
    const session = token ? await resolveSession(deps, token) : undefined;
    if (!session) {
      if (token) headers["set-cookie"] = clearedSessionCookie(deps.env);
      throw new AppError("UNAUTHORIZED", "Sign in first: this needs a website session.");
    }
    if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, request.headers.get("x-csrf-token"))) {
      throw new AppError("CSRF_FAILED", "Send the session's CSRF token in the x-csrf-token header.");
    }
    sessions.set(request, session);
    const state = stateOf(request);
    state.principal = { accountId: session.accountId, keyId: WEB_SESSION_KEY_ID, plan: session.plan };
    if (policy.uncounted) return;
    state.rate = await charge(state.principal);
    setRateLimitHeaders(headers, state.rate);
    await authorize({ plans: deps.plans, plan: session.plan }, { feature: policy.feature });
  };
}
