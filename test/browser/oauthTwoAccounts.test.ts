import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createApp } from "../../api/app";
import { launchChromium, type Site, startSite } from "../helpers/browser";
import { testDeps } from "../helpers/infra";
import {
  authorizeUrl,
  CALLBACK,
  exchangeCode,
  mcpWith,
  pkcePair,
  type RegisteredClient,
  registerClient,
} from "../helpers/oauth";
import { type WebUser, webUser } from "../helpers/website";

/**
 * A shared computer: two accounts, one after the other, in ONE Chromium context. The authorization
 * server's own login must never outlive the website session, so B is asked on a consent page that
 * names B and gets a token for B, and with nobody signed in the browser goes to sign in, never back
 * to the client with a code. (test/integration/auth/oauthSessions.test.ts runs the same over plain HTTP.)
 */
let site: Site;
let alice: WebUser;
let bob: WebUser;
let client: RegisteredClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every URL the browser was sent to at the client's redirect_uri (the callback host need not exist). */
const callbacks: URL[] = [];

beforeAll(async () => {
  site = await startSite(await testDeps());
  const app = createApp(site.deps);
  alice = await webUser(app, site.deps, { plan: "go" });
  bob = await webUser(app, site.deps, { plan: "go" });
  client = await registerClient(site.url, { client_name: "Shared Computer Assistant" });
  browser = await launchChromium();
  context = await browser.newContext();
  // Every hop of a redirect chain is a request event, even one the route below does not get to answer
  // (a redirect the route does answer is reported twice, hence the check for a URL already seen).
  context.on("request", (request) => {
    const url = request.url();
    if (url.startsWith(CALLBACK) && !callbacks.some((seen) => seen.href === url)) callbacks.push(new URL(url));
  });
  await context.route(`${CALLBACK}**`, (route) =>
    route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Connected</title>" }),
  );
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

async function signIn(user: WebUser): Promise<void> {
  await page.goto(`${site.url}/`);
  await page.getByLabel("Email").first().fill(user.email);
  await page.getByLabel("Password", { exact: true }).first().fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${site.url}/dashboard`);
}

/** The website's own Sign out button, on the dashboard. */
async function signOut(): Promise<void> {
  await page.goto(`${site.url}/dashboard`);
  await page.locator("body[data-ready]").waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${site.url}/`);
}

/**
 * Opens a URL and returns the navigation's error instead of throwing it: a redirect straight to the
 * callback during `goto` is not answered by the route (port 9, nothing listens), and the test's
 * assertion on `callbacks` says more than "connection refused".
 */
async function open(url: string): Promise<Error | undefined> {
  return page.goto(url).then(
    () => undefined,
    (error: Error) => error,
  );
}

async function accountOfToken(token: string): Promise<string | undefined> {
  const response = await mcpWith(site.url, token, {
    method: "tools/call",
    params: { name: "get_account", arguments: {} },
  });
  const body = (await response.json()) as { result: { structuredContent?: { accountId?: string } } };
  return body.result.structuredContent?.accountId;
}

/**
 * Opens the client's authorization URL in the page; the consent page must name `user`, who allows
 * `account:read`. Returns the account id of the token the code is exchanged for.
 */
async function authorizeAs(user: WebUser, other: WebUser): Promise<string | undefined> {
  const { verifier, challenge } = pkcePair();
  const seen = callbacks.length;
  const opened = await open(authorizeUrl(site.url, { client, challenge, scope: "account:read" }));
  // A login kept from the other account would go straight back with a code instead of this page.
  expect(callbacks.slice(seen).map((url) => url.href)).toEqual([]);
  if (opened) throw opened;
  expect(new URL(page.url()).pathname).toStartWith("/oauth/interaction/");
  const consent = (await page.locator("main").textContent()) ?? "";
  expect(consent).toContain(user.email);
  expect(consent).not.toContain(other.email);
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL(`${CALLBACK}**`);
  const back = callbacks.at(-1) as URL;
  expect(callbacks).toHaveLength(seen + 1);
  expect(back.searchParams.get("error")).toBeNull();
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code for ${user.email}: ${back.href}`);
  return accountOfToken((await exchangeCode(site.url, client, code, verifier)).access_token);
}

describe("two accounts authorize one client in one browser", () => {
  test("A allows and signs out; B is asked on B's consent page and gets B's token; nobody signed in gets sign-in", async () => {
    await signIn(alice);
    expect(await authorizeAs(alice, bob)).toBe(alice.accountId);
    await signOut();

    await signIn(bob);
    expect(await authorizeAs(bob, alice)).toBe(bob.accountId);
    await signOut();

    const seen = callbacks.length;
    const opened = await open(authorizeUrl(site.url, { client, scope: "account:read" }));
    expect(callbacks.slice(seen).map((url) => url.href)).toEqual([]);
    if (opened) throw opened;
    expect(new URL(page.url()).pathname).toBe("/");
    expect(new URL(page.url()).searchParams.get("next")).toStartWith("/oauth/interaction/");
    await page.getByRole("button", { name: "Sign in" }).waitFor();
  }, 60_000);
});
