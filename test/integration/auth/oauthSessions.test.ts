import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { type Site, startSite } from "../../helpers/browser";
import type { TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import {
  authorizeAs,
  authorizeUrl,
  browse,
  CookieJar,
  exchangeCode,
  mcpWith,
  pkcePair,
  registerClient,
} from "../../helpers/oauth";
import { TEST_PASSWORD, type WebUser, webUser } from "../../helpers/website";

/**
 * One browser, two accounts: the authorization server's own login never outlives the website
 * session, and never issues a code for another account than the one signed in on the website.
 */
let site: Site;
let app: TestApp;
let deps: Deps;
let alice: WebUser;
let bob: WebUser;

beforeAll(async () => {
  site = await startSite(await testDeps());
  deps = site.deps;
  app = createApp(deps);
  alice = await webUser(app, deps, { plan: "go" });
  bob = await webUser(app, deps, { plan: "go" });
});

afterAll(async () => {
  await site?.stop();
});

/** Signs in through the website's endpoint in this browser; returns the page's CSRF token. */
async function signIn(jar: CookieJar, user: WebUser): Promise<string> {
  const response = await browse(jar, `${site.url}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: user.email, password: TEST_PASSWORD }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

async function signOut(jar: CookieJar, csrfToken: string): Promise<void> {
  const response = await browse(jar, `${site.url}/api/auth/signout`, {
    method: "POST",
    headers: { "x-csrf-token": csrfToken },
  });
  expect(response.status).toBe(204);
}

async function accountOfToken(token: string): Promise<string> {
  const response = await mcpWith(site.url, token, {
    method: "tools/call",
    params: { name: "get_account", arguments: {} },
  });
  const body = (await response.json()) as { result: { structuredContent?: { accountId?: string } } };
  return body.result.structuredContent?.accountId ?? "";
}

/** Connects the client as whoever the jar's website session is; returns the token's account id. */
async function connectInBrowser(jar: CookieJar, user: WebUser, csrfToken: string, clientId: string) {
  const client = { client_id: clientId, redirect_uris: [] };
  const { verifier, challenge } = pkcePair();
  const back = await authorizeAs(
    site.url,
    { cookie: jar.header(), csrfToken },
    { client, challenge, scope: "account:read" },
    { allow: true },
    jar,
  );
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code for ${user.email}: ${back.href}`);
  return accountOfToken((await exchangeCode(site.url, client, code, verifier)).access_token);
}

describe("one identity for the website and the authorization server", () => {
  test("A allows, signs out, B signs in and authorizes: B sees the consent page, and the token is B's", async () => {
    const client = await registerClient(site.url);
    const jar = new CookieJar();
    const aliceCsrf = await signIn(jar, alice);
    expect(await connectInBrowser(jar, alice, aliceCsrf, client.client_id)).toContain(alice.accountId);
    expect(jar.has("_session")).toBe(true);

    await signOut(jar, aliceCsrf);
    // Sign-out ends the provider's login too, in the browser and on the server.
    expect(jar.has("_session")).toBe(false);

    const bobCsrf = await signIn(jar, bob);
    const first = await browse(jar, authorizeUrl(site.url, { client, scope: "account:read" }));
    expect(first.status).toBe(303);
    const location = first.headers.get("location") ?? "";
    expect(location).toContain("/oauth/interaction/");
    const consent = await browse(jar, new URL(location, site.url).href);
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain(bob.email);
    expect(page).not.toContain(alice.email);

    const account = await connectInBrowser(jar, bob, bobCsrf, client.client_id);
    expect(account).toContain(bob.accountId);
    expect(account).not.toContain(alice.accountId);
  });

  test("a provider login kept past sign-out (a cookie copied back) still asks B, and B's token is B's", async () => {
    const client = await registerClient(site.url);
    const jar = new CookieJar();
    const aliceCsrf = await signIn(jar, alice);
    await connectInBrowser(jar, alice, aliceCsrf, client.client_id);
    const kept = { session: jar.get("_session"), sig: jar.get("_session.sig") };
    // Bob signs in over Alice's website session without her signing out.
    const bobCsrf = await signIn(jar, bob);
    if (kept.session) jar.put("_session", kept.session);
    if (kept.sig) jar.put("_session.sig", kept.sig);
    const first = await browse(jar, authorizeUrl(site.url, { client, scope: "account:read" }));
    expect(first.headers.get("location") ?? "").toContain("/oauth/interaction/");
    expect(await connectInBrowser(jar, bob, bobCsrf, client.client_id)).toContain(bob.accountId);
  });

  test("with the provider's login and no website session, the browser goes to sign in, never back with a code", async () => {
    const client = await registerClient(site.url);
    const jar = new CookieJar();
    const aliceCsrf = await signIn(jar, alice);
    await connectInBrowser(jar, alice, aliceCsrf, client.client_id);
    const kept = { session: jar.get("_session"), sig: jar.get("_session.sig") };
    await signOut(jar, aliceCsrf);
    if (kept.session) jar.put("_session", kept.session);
    if (kept.sig) jar.put("_session.sig", kept.sig);
    const first = await browse(jar, authorizeUrl(site.url, { client, scope: "account:read" }));
    expect(first.status).toBe(303);
    const location = first.headers.get("location") ?? "";
    expect(location).toContain("/oauth/interaction/");
    expect(location).not.toContain("code=");
    const page = await browse(jar, new URL(location, site.url).href);
    expect(page.status).toBe(303);
    expect(new URL(page.headers.get("location") ?? "", site.url).pathname).toBe("/");
  });

  test("the same account signing in again is not asked twice: its own grant is used silently", async () => {
    const client = await registerClient(site.url);
    const jar = new CookieJar();
    const csrf = await signIn(jar, alice);
    await connectInBrowser(jar, alice, csrf, client.client_id);
    const again = await browse(jar, authorizeUrl(site.url, { client, scope: "account:read" }));
    expect(again.status).toBe(303);
    // Straight back towards the client (through the provider's resume), without the consent page.
    expect(again.headers.get("location") ?? "").not.toContain("/oauth/interaction/");
  });
});
