import { resolveSession, type WebSession } from "../../shared/auth/webSessions";
import type { Deps } from "../../shared/context/deps";
import { cookieValue, SESSION_COOKIE } from "../plugins/session";
import type { OAuthServer } from "./provider";

/**
 * One identity for the website and the authorization server. oidc-provider keeps a login of its
 * own per browser (the `_session` cookie, 14 days); left alone it would outlive a website sign-out
 * and hand the next person on the same browser a code for the previous account. So:
 * - an authorization starts from the website session: a provider login of another account (or one
 *   with no website session behind it) is ended before the provider sees the request, so the
 *   interaction runs and asks the signed-in account (`alignedAuthorization`);
 * - the provider's own prompt policy checks the same thing again (provider.ts, `website_session`);
 * - a website sign-out ends the provider login of that browser too (`endProviderLogin`).
 */
const PROVIDER_COOKIES = ["_session", "_session.sig", "_session.legacy", "_session.legacy.sig"];

/** The website session a Cookie header carries, if it is live. */
export async function websiteSession(deps: Deps, cookieHeader: string | null): Promise<WebSession | undefined> {
  const token = cookieValue(cookieHeader, SESSION_COOKIE);
  return token ? resolveSession(deps, token) : undefined;
}

/** `Set-Cookie` values that clear the provider's login cookies in the browser. */
function clearedProviderCookies(secure: boolean): string[] {
  const flags = `; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}; Max-Age=0`;
  return PROVIDER_COOKIES.map((name) => `${name}=${flags}`);
}

/** The Cookie header without the provider's login cookies. */
function withoutProviderCookies(header: string | null): string {
  return (header ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part && !PROVIDER_COOKIES.includes(part.slice(0, part.indexOf("=")).trim()))
    .join("; ");
}

/** The provider login this browser holds (by its cookie), if it still exists. */
async function providerLogin(server: OAuthServer, request: Request) {
  const id = cookieValue(request.headers.get("cookie"), "_session");
  return id ? server.provider.Session.find(id) : undefined;
}

/**
 * Ends the provider login this browser holds, on the server and in the browser. Returns the
 * `Set-Cookie` values to send (none when the browser held no provider login).
 */
export async function endProviderLogin(server: OAuthServer, request: Request): Promise<string[]> {
  if (!cookieValue(request.headers.get("cookie"), "_session")) return [];
  await (await providerLogin(server, request))?.destroy();
  return clearedProviderCookies(server.issuer.startsWith("https://"));
}

/**
 * An authorization request as the provider may see it: when the browser's provider login is not the
 * signed-in website account (another account, or no website session at all), that login is ended and
 * the request goes on without it, so the provider asks for sign-in and consent again.
 */
export async function alignedAuthorization(server: OAuthServer, deps: Deps, request: Request): Promise<Request> {
  const login = await providerLogin(server, request);
  if (!login?.accountId) return request;
  const web = await websiteSession(deps, request.headers.get("cookie"));
  if (web && web.accountId === login.accountId) return request;
  await login.destroy();
  // The provider answers with a fresh login cookie of its own, which replaces the old one.
  const headers = new Headers(request.headers);
  headers.set("cookie", withoutProviderCookies(request.headers.get("cookie")));
  return new Request(request.url, { method: request.method, headers });
}
