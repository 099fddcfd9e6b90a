import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser, Page } from "playwright-core";
import { createApp } from "../../api/app";
import { freePort } from "../../scripts/lib/processes";
import { upsertPapers } from "../../shared/papers/repository";
import type { Paper } from "../../shared/records/paper";
import { launchChromium, type Site, startSite } from "../helpers/browser";
import { demoPapers } from "../helpers/indexes";
import { testDeps } from "../helpers/infra";
import { TestOAuthClient } from "../helpers/mcpOauth";
import { type WebUser, webUser } from "../helpers/website";

/**
 * A hosted assistant adding this server as a connector, played by the official MCP SDK client's
 * OAuth support and a real browser: discovery from the 401, dynamic registration, PKCE, the
 * website's sign-in and consent pages clicked in Chromium, the code back at the client's callback,
 * tokens, tools, a refresh, then the user disconnecting it on the dashboard.
 */

/** The assistant's redirect_uri: a server that hands the code (or error) it receives to the test. */
function startCallback() {
  const port = freePort();
  let deliver: (params: URLSearchParams) => void = () => {};
  const received = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch(request) {
      deliver(new URL(request.url).searchParams);
      return new Response("<!doctype html><title>Connected</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
  return { url: `http://127.0.0.1:${port}/callback`, received, stop: () => server.stop(true) };
}

let site: Site;
let user: WebUser;
let browser: Browser;
let page: Page;
let callback: ReturnType<typeof startCallback>;
const assistant = () => new TestOAuthClient(callback.url, undefined, "Hosted Assistant (test)");
let host: TestOAuthClient;
let mcpUrl: URL;
/** A paper the client reads as a resource. */
let paper: Paper;

beforeAll(async () => {
  site = await startSite(await testDeps());
  user = await webUser(createApp(site.deps), site.deps, { plan: "go" });
  paper = (await demoPapers())[0] as Paper;
  await upsertPapers(site.deps.sql, [paper]);
  callback = startCallback();
  browser = await launchChromium();
  page = await browser.newPage();
  host = assistant();
  mcpUrl = new URL(`${site.url}/api/mcp`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  callback?.stop();
  await site?.stop();
});

const connectClient = async () => {
  const client = new Client({ name: "hosted-assistant", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }));
  return client;
};

describe("a hosted assistant connects over OAuth", () => {
  test("the SDK client is sent to sign in; the user signs in and allows it in Chromium; the code comes back", async () => {
    // No token yet: the 401's resource_metadata leads the SDK to discovery and registration.
    await expect(connectClient()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(host.information?.client_id).toBeString();
    const authorizationUrl = host.authorizationUrl as URL;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${site.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(mcpUrl.href);

    // The browser: the website's sign-in page (no session yet), which returns to the consent page.
    await page.goto(authorizationUrl.href);
    await page.waitForURL(/\/\?next=/);
    await page.getByLabel("Email").first().fill(user.email);
    await page.getByLabel("Password", { exact: true }).first().fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/oauth\/interaction\//);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Hosted Assistant (test)");
    const offered = await page
      .locator('input[name="scope"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
    expect(offered.sort()).toEqual(["account:read", "chat", "health:read", "health:write", "papers:read"]);
    // The user keeps papers and account only.
    for (const scope of ["health:read", "health:write", "chat"]) await page.getByLabel(scope).uncheck();
    await page.getByRole("button", { name: "Allow" }).click();
    const params = await callback.received;
    expect(params.get("error")).toBeNull();
    expect(params.get("code")).toBeString();
    await page.waitForURL(`${callback.url}**`);

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: host });
    await transport.finishAuth(params.get("code") as string);
    expect(host.saved?.access_token).toBeString();
    expect(host.saved?.refresh_token).toBeString();
    expect(host.saved?.scope?.split(" ").sort()).toEqual(["account:read", "papers:read"]);
  }, 60_000);

  test("with its token the client lists and calls tools; a tool outside the allowed scopes says which scope", async () => {
    const client = await connectClient();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(36);
    const account = await client.callTool({ name: "get_account", arguments: {} });
    expect(account.isError).toBeFalsy();
    expect(account.structuredContent).toMatchObject({ accountId: user.accountId, plan: "go" });
    const chats = await client.callTool({ name: "list_chats", arguments: {} });
    expect(chats.isError).toBe(true);
    expect(JSON.stringify(chats.content)).toContain("chat");
    await client.close();
  });

  test("and reads resources, gets prompts and completions within its scopes", async () => {
    const client = await connectClient();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("paper://{arxivId}");
    const read = await client.readResource({ uri: `paper://${paper.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: paper.id, title: paper.title });
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "paper://{arxivId}" },
      argument: { name: "arxivId", value: paper.id.slice(0, -1) },
    });
    expect(completion.completion.values).toContain(paper.id);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
      "check_my_medications",
      "explain_condition",
      "literature_review",
      "prepare_doctor_visit",
    ]);
    const review = await client.getPrompt({ name: "literature_review", arguments: { topic: "neutrino" } });
    expect(review.messages.length).toBeGreaterThan(0);
    // The health prompt needs health:read, which the user did not allow.
    await expect(client.getPrompt({ name: "prepare_doctor_visit", arguments: {} })).rejects.toThrow(/health:read/);
    await client.close();
  });

  test("the SDK refreshes: a new access token and a rotated refresh token, and the tools still answer", async () => {
    const before = host.saved as OAuthTokens;
    expect(await auth(host, { serverUrl: mcpUrl })).toBe("AUTHORIZED");
    const after = host.saved as OAuthTokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const client = await connectClient();
    const account = await client.callTool({ name: "get_account", arguments: {} });
    expect(account.isError).toBeFalsy();
    await client.close();
  });

  test("the dashboard lists the application; Disconnect ends it: the token is refused with the resource challenge", async () => {
    await page.goto(`${site.url}/dashboard`);
    const row = page.locator("#connections-table tbody tr", { hasText: "Hosted Assistant (test)" });
    await row.waitFor();
    expect(await row.textContent()).toContain("papers:read");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Disconnect Hosted Assistant (test)" }).click();
    await page.getByText("Hosted Assistant (test) disconnected.").waitFor();
    expect(await page.locator("#connections-table tbody").textContent()).toContain("No applications connected.");

    const response = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${host.saved?.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${site.url}/.well-known/oauth-protected-resource/api/mcp"`);
    // The SDK's refresh is refused too: the grant and its refresh token are gone.
    await expect(connectClient()).rejects.toMatchObject({ name: "InvalidGrantError" });
  });
});
