import { createHash, randomBytes } from "node:crypto";
import type { WebUser } from "./website";

/**
 * An OAuth client as a hosted assistant plays it, over plain HTTP: registers itself, runs the
 * authorization with PKCE through the consent page (as the signed-in website user), and trades the
 * code. Each step returns what the server said, so tests can break any of them.
 */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  client_name?: string;
}

export const CALLBACK = "http://127.0.0.1:9/oauth/callback";
export const ALL_SCOPES = "papers:read account:read health:read health:write chat";

export async function registerClient(site: string, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const response = await fetch(`${site}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Assistant",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredClient;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Cookies as a browser keeps them for one site (path scoping is ignored: all paths are ours). */
export class CookieJar {
  private cookies = new Map<string, string>();
  constructor(initial = "") {
    for (const pair of initial.split(";")) this.set(pair.trim());
  }
  private set(pair: string) {
    const eq = pair.indexOf("=");
    if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  take(response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair = ""] = header.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(header)) this.cookies.delete(pair.slice(0, eq));
      else this.set(pair);
    }
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  put(name: string, value: string) {
    this.cookies.set(name, value);
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** One request with the jar's cookies, not following redirects. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("cookie", jar.header());
  const response = await fetch(url, { ...init, headers, redirect: "manual" });
  jar.take(response);
  return response;
}

export interface AuthorizeParams {
  client: RegisteredClient;
  scope?: string;
  redirectUri?: string;
  challenge?: string | null;
  method?: string;
  resource?: string | null;
  state?: string;
}

export function authorizeUrl(site: string, params: AuthorizeParams): string {
  const url = new URL(`${site}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.client.client_id);
  url.searchParams.set("redirect_uri", params.redirectUri ?? CALLBACK);
  url.searchParams.set("scope", params.scope ?? ALL_SCOPES);
  url.searchParams.set("state", params.state ?? "state-1");
  if (params.challenge !== null) {
    url.searchParams.set("code_challenge", params.challenge ?? pkcePair().challenge);
    url.searchParams.set("code_challenge_method", params.method ?? "S256");
  }
  if (params.resource !== null) url.searchParams.set("resource", params.resource ?? `${site}/api/mcp`);
  return url.href;
}

/**
 * Runs the browser's part: authorize → consent page → the user's decision → back to the client.
 * Returns the final redirect to the client's redirect_uri (its code or error are in the query).
 */
export function authorizeAs(
  site: string,
  user: Pick<WebUser, "cookie" | "csrfToken">,
  params: AuthorizeParams,
  decision: { allow: boolean; scopes?: string[] } = { allow: true },
  /** The browser's cookies, kept across calls; a fresh jar with the user's session cookie by default. */
  jar = new CookieJar(user.cookie),
): Promise<URL> {
  return authorizeAt(site, user, authorizeUrl(site, params), decision, jar);
}

/** The same browser's part, from an authorization URL a client built (an SDK's OAuth support). */
export async function authorizeAt(
  site: string,
  user: Pick<WebUser, "cookie" | "csrfToken">,
  url: string,
  decision: { allow: boolean; scopes?: string[] } = { allow: true },
  jar = new CookieJar(user.cookie),
): Promise<URL> {
  let response = await browse(jar, url);
  let location = response.headers.get("location");
  if (response.status !== 303 || !location) throw new Error(`authorize: ${response.status} ${await response.text()}`);
  if (!location.startsWith(`${site}/oauth/interaction/`) && !location.startsWith("/oauth/interaction/")) {
    return new URL(location, site);
  }
  const interaction = new URL(location, site).href;
  const page = await browse(jar, interaction);
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${await page.text()}`);
  const html = await page.text();
  const offered = [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1] as string);
  const form = new URLSearchParams({ csrf: user.csrfToken, decision: decision.allow ? "allow" : "deny" });
  for (const scope of decision.scopes ?? offered) form.append("scope", scope);
  response = await browse(jar, interaction, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  location = response.headers.get("location");
  if (response.status !== 303 || !location) throw new Error(`consent: ${response.status} ${await response.text()}`);
  // The provider's resume endpoint, then the client's redirect_uri.
  for (let hop = 0; hop < 5 && new URL(location, site).origin === new URL(site).origin; hop++) {
    response = await browse(jar, new URL(location, site).href);
    const next = response.headers.get("location");
    if (!next) throw new Error(`resume: ${response.status} ${await response.text()}`);
    location = next;
  }
  return new URL(location, site);
}

export async function tokenRequest(site: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${site}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  expires_in: number;
  token_type: string;
}

/** The whole flow for one user: a registered client's tokens, with the scopes given. */
export async function connect(
  site: string,
  user: Pick<WebUser, "cookie" | "csrfToken">,
  options: { scopes?: string[]; client?: RegisteredClient; jar?: CookieJar } = {},
): Promise<{ client: RegisteredClient; tokens: Tokens }> {
  const client = options.client ?? (await registerClient(site));
  const { verifier, challenge } = pkcePair();
  const decision = { allow: true, scopes: options.scopes };
  const back = await authorizeAs(site, user, { client, challenge }, decision, options.jar);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back.href}`);
  return { client, tokens: await exchangeCode(site, client, code, verifier) };
}

/** Trades a code for tokens (the client's part after the redirect). */
export async function exchangeCode(site: string, client: RegisteredClient, code: string, verifier: string) {
  const response = await tokenRequest(site, {
    grant_type: "authorization_code",
    code,
    redirect_uri: CALLBACK,
    client_id: client.client_id,
    code_verifier: verifier,
    resource: `${site}/api/mcp`,
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return (await response.json()) as Tokens;
}

/** One MCP JSON-RPC call with a bearer token. */
export function mcpWith(site: string, token: string, message: Record<string, unknown>): Promise<Response> {
  return fetch(`${site}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });
}
