import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { type OAuthServer, startOAuthServer } from "../../../api/oauth/provider";
import { sweepOAuthRecords } from "../../../shared/auth/oauth/sweep";
import type { Deps } from "../../../shared/context/deps";
import { startWorkers } from "../../../workers/runner";
import { type Site, startSite } from "../../helpers/browser";
import { call, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import {
  ALL_SCOPES,
  authorizeAs,
  authorizeUrl,
  CALLBACK,
  connect,
  mcpWith,
  pkcePair,
  registerClient,
  tokenRequest,
} from "../../helpers/oauth";
import { type WebUser, webCall, webUser } from "../../helpers/website";

/**
 * The OAuth 2.1 authorization server and the MCP endpoint as its protected resource, over real
 * HTTP as a hosted assistant uses them: metadata, registration, PKCE, consent, tokens bound to the
 * resource, refresh rotation with reuse detection, revocation, scopes, and the dashboard.
 */
let site: Site;
let app: TestApp;
let deps: Deps;
let user: WebUser;
let oauth: OAuthServer;

beforeAll(async () => {
  site = await startSite(await testDeps());
  deps = site.deps;
  app = createApp(deps);
  user = await webUser(app, deps, { plan: "go" });
  oauth = await startOAuthServer(deps);
});

afterAll(async () => {
  await oauth?.close();
  await site?.stop();
});

const resource = () => `${site.url}/api/mcp`;
const toolCall = (token: string, name: string, args: Record<string, unknown> = {}) =>
  mcpWith(site.url, token, { method: "tools/call", params: { name, arguments: args } });

async function toolResult(token: string, name: string, args: Record<string, unknown> = {}) {
  const response = await toolCall(token, name, args);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { isError?: boolean; content: { text: string }[] } };
  return { isError: body.result.isError === true, text: body.result.content[0]?.text ?? "" };
}

async function oauthError(response: Response) {
  return (await response.json()) as { error: string; error_description?: string };
}

describe("discovery", () => {
  test("protected-resource metadata (RFC 9728) at the root and path-suffixed URLs names this server and the scopes", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"]) {
      const response = await fetch(`${site.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: resource(),
        authorization_servers: [site.url],
        scopes_supported: ALL_SCOPES.split(" "),
        bearer_methods_supported: ["header"],
      });
    }
  });

  test("authorization-server metadata (RFC 8414): code flow only, S256 only, registration and revocation", async () => {
    const response = await fetch(`${site.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: site.url,
      authorization_endpoint: `${site.url}/oauth/authorize`,
      token_endpoint: `${site.url}/oauth/token`,
      registration_endpoint: `${site.url}/oauth/register`,
      revocation_endpoint: `${site.url}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(metadata.grant_types_supported).not.toContain("implicit");
  });

  test("a 401 on /api/mcp points at the resource metadata; one for a sent token adds invalid_token; REST's does not", async () => {
    const bare = await fetch(`${site.url}/api/mcp`, { method: "POST" });
    expect(bare.status).toBe(401);
    const challenge = bare.headers.get("www-authenticate") ?? "";
    expect(challenge).toStartWith("Bearer ");
    expect(challenge).toContain(`resource_metadata="${site.url}/.well-known/oauth-protected-resource/api/mcp"`);
    expect(challenge).not.toContain("invalid_token");
    const wrong = await mcpWith(site.url, "not-a-real-token-value-at-all-00000000000", { method: "ping" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(wrong.headers.get("www-authenticate")).toContain("resource_metadata=");
    const rest = await fetch(`${site.url}/api/v1/account`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get("www-authenticate")).not.toContain("resource_metadata");
  });
});

describe("registration and authorization", () => {
  test("dynamic registration (RFC 7591) gives a public client an id and no secret; a bad redirect_uri is refused", async () => {
    const client = await registerClient(site.url, { client_name: "Registered" });
    expect(client.client_id).toBeString();
    expect(client.client_secret).toBeUndefined();
    expect(client.redirect_uris).toEqual([CALLBACK]);
    const bad = await fetch(`${site.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["not a url"], token_endpoint_auth_method: "none" }),
    });
    expect(bad.status).toBe(400);
    expect((await oauthError(bad)).error).toMatch(/invalid_(redirect_uri|client_metadata)/);
  });

  test("a registration's scope naming the MCP scopes (as the SDK sends it) is accepted; they are asked for at authorization", async () => {
    const client = await registerClient(site.url, { scope: `${ALL_SCOPES} offline_access` });
    expect((client as { scope?: string }).scope).toBe("offline_access");
    const bare = await registerClient(site.url, { scope: ALL_SCOPES });
    expect((bare as { scope?: string }).scope).toBeUndefined();
  });

  test("an unregistered redirect_uri gets an error page, never a redirect to it", async () => {
    const client = await registerClient(site.url);
    const response = await fetch(authorizeUrl(site.url, { client, redirectUri: "https://attacker.example/cb" }), {
      redirect: "manual",
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("redirect_uri");
  });

  test("PKCE is required and only S256: a missing or plain challenge goes back as invalid_request", async () => {
    const client = await registerClient(site.url);
    for (const params of [{ challenge: null }, { challenge: "a".repeat(43), method: "plain" }]) {
      const response = await fetch(authorizeUrl(site.url, { client, ...params }), { redirect: "manual" });
      expect(response.status).toBe(303);
      const back = new URL(response.headers.get("location") ?? "");
      expect(back.origin + back.pathname).toBe(CALLBACK);
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.get("state")).toBe("state-1");
    }
  });

  test("a resource other than this MCP endpoint is refused (RFC 8707 invalid_target)", async () => {
    const client = await registerClient(site.url);
    const response = await fetch(authorizeUrl(site.url, { client, resource: "https://elsewhere.example/api" }), {
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_target");
  });

  test("the consent page names the client, the account and each scope; denying sends access_denied back", async () => {
    const client = await registerClient(site.url, { client_name: "Denied Assistant" });
    const back = await authorizeAs(site.url, user, { client }, { allow: false });
    expect(back.origin + back.pathname).toBe(CALLBACK);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();
  });

  test("a consent post without the session's CSRF token is refused", async () => {
    const client = await registerClient(site.url);
    const jarUser = { ...user, csrfToken: "forged" };
    await expect(authorizeAs(site.url, jarUser, { client })).rejects.toThrow(/consent: 403/);
  });

  test("the consent page without a website session sends the browser to sign in and back", async () => {
    const client = await registerClient(site.url);
    const first = await fetch(authorizeUrl(site.url, { client }), { redirect: "manual" });
    const interaction = first.headers.get("location") ?? "";
    expect(interaction).toContain("/oauth/interaction/");
    const cookies = first.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const page = await fetch(new URL(interaction, site.url), { headers: { cookie: cookies }, redirect: "manual" });
    expect(page.status).toBe(303);
    const signIn = new URL(page.headers.get("location") ?? "", site.url);
    expect(signIn.pathname).toBe("/");
    expect(signIn.searchParams.get("next")).toBe(new URL(interaction, site.url).pathname);
    // Another browser (without the interaction's cookie) cannot use the link.
    const stolen = await fetch(new URL(interaction, site.url), {
      headers: { cookie: user.cookie },
      redirect: "manual",
    });
    expect(stolen.status).toBe(403);
  });
});

describe("tokens", () => {
  test("a code needs its own verifier: another is invalid_grant, and the right one then still works, once", async () => {
    const client = await registerClient(site.url);
    const { verifier, challenge } = pkcePair();
    const back = await authorizeAs(site.url, user, { client, challenge });
    const code = back.searchParams.get("code") as string;
    const exchange = (codeVerifier: string) =>
      tokenRequest(site.url, {
        grant_type: "authorization_code",
        code,
        redirect_uri: CALLBACK,
        client_id: client.client_id,
        code_verifier: codeVerifier,
        resource: resource(),
      });
    const wrongVerifier = await exchange(pkcePair().verifier);
    expect(wrongVerifier.status).toBe(400);
    expect((await oauthError(wrongVerifier)).error).toBe("invalid_grant");
    // A wrong verifier does not burn the code (whoever stole it cannot spoil the client's exchange).
    expect((await exchange(verifier)).status).toBe(200);
    const again = await exchange(verifier);
    expect(again.status).toBe(400);
    expect((await oauthError(again)).error).toBe("invalid_grant");
  });

  test("the right exchange works once; the code's second use is refused and revokes its tokens", async () => {
    const client = await registerClient(site.url);
    const { verifier, challenge } = pkcePair();
    const back = await authorizeAs(site.url, user, { client, challenge });
    const form = {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      redirect_uri: CALLBACK,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: resource(),
    };
    const first = await tokenRequest(site.url, form);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as { access_token: string; scope: string; token_type: string };
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.scope.split(" ").sort()).toEqual(ALL_SCOPES.split(" ").sort());
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(200);
    const again = await tokenRequest(site.url, form);
    expect(again.status).toBe(400);
    expect((await oauthError(again)).error).toBe("invalid_grant");
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(401);
  });

  test("refresh tokens rotate; a used one presented again is refused and ends the whole grant", async () => {
    const { client, tokens } = await connect(site.url, user);
    const refresh = (token: string) =>
      tokenRequest(site.url, { grant_type: "refresh_token", refresh_token: token, client_id: client.client_id });
    const first = await refresh(tokens.refresh_token as string);
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpWith(site.url, rotated.access_token, { method: "ping" })).status).toBe(200);
    const reused = await refresh(tokens.refresh_token as string);
    expect(reused.status).toBe(400);
    expect((await oauthError(reused)).error).toBe("invalid_grant");
    // Reuse detection: everything under the grant is gone, the newest tokens included.
    expect((await refresh(rotated.refresh_token)).status).toBe(400);
    expect((await mcpWith(site.url, rotated.access_token, { method: "ping" })).status).toBe(401);
  });

  test("revocation (RFC 7009) stops an access token at the next request", async () => {
    const { client, tokens } = await connect(site.url, user);
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(200);
    const revoked = await fetch(`${site.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.access_token, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    const after = await mcpWith(site.url, tokens.access_token, { method: "ping" });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  test("tokens are for /api/mcp only: REST refuses them, and a token for another audience is refused at /api/mcp", async () => {
    const { tokens } = await connect(site.url, user);
    expect(
      (await fetch(`${site.url}/api/v1/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } }))
        .status,
    ).toBe(401);
    const client = await registerClient(site.url);
    const grant = new oauth.provider.Grant({ accountId: user.accountId, clientId: client.client_id });
    grant.addResourceScope("https://elsewhere.example/api", "papers:read");
    const foreign = new oauth.provider.AccessToken({
      accountId: user.accountId,
      clientId: client.client_id,
      grantId: await grant.save(),
      scope: "papers:read",
      aud: "https://elsewhere.example/api",
    } as never);
    const value = await foreign.save();
    const response = await mcpWith(site.url, value, { method: "ping" });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "not issued for this resource",
    );
  });

  test("token calls count against the account's hourly limit together with its API keys", async () => {
    const { tokens } = await connect(site.url, user);
    const created = await webCall(app, user, "/api/dashboard/keys", { method: "POST" });
    const key = ((await created.json()) as { key: string }).key;
    const byKey = await call(app, "/api/v1/account", { key });
    const afterKey = Number(byKey.headers.get("ratelimit-remaining"));
    const byToken = await mcpWith(site.url, tokens.access_token, { method: "ping" });
    expect(Number(byToken.headers.get("ratelimit-limit"))).toBe(Number(byKey.headers.get("ratelimit-limit")));
    expect(Number(byToken.headers.get("ratelimit-remaining"))).toBe(afterKey - 1);
  });
});

describe("scopes, plan and consent", () => {
  test("a tool outside the token's scopes is an isError naming the scope; tools inside it run", async () => {
    const { tokens } = await connect(site.url, user, { scopes: ["papers:read"] });
    expect(tokens.scope).toBe("papers:read");
    const allowed = await toolResult(tokens.access_token, "list_paper_categories");
    expect(allowed.isError).toBe(false);
    for (const [tool, scope] of [
      ["get_account", "account:read"],
      ["list_health_logs", "health:read"],
      ["create_health_log", "health:write"],
      ["list_chats", "chat"],
    ] as const) {
      const refused = await toolResult(
        tokens.access_token,
        tool,
        tool === "create_health_log" ? { title: "x", kind: "acute" } : {},
      );
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain(scope);
    }
  });

  test("health scopes do not lift the plan: a free account's token is refused health tools by plan", async () => {
    const free = await webUser(app, deps, { plan: "free" });
    const { tokens } = await connect(site.url, free);
    const refused = await toolResult(tokens.access_token, "list_health_logs");
    expect(refused.isError).toBe(true);
    expect(refused.text.toLowerCase()).toContain("plan");
  });

  test("health scopes do not give consent: without the profile's consent a new log is refused", async () => {
    const { tokens } = await connect(site.url, user);
    const refused = await toolResult(tokens.access_token, "create_health_log", { title: "Headaches", kind: "acute" });
    expect(refused.isError).toBe(true);
    expect(refused.text.toLowerCase()).toContain("consent");
  });
});

describe("a chat started with a token keeps to its scopes", () => {
  test("without health:read the turn's tools read no health data and the profile is not in the instructions", async () => {
    const owner = await webUser(app, deps, { plan: "go" });
    const full = (await connect(site.url, owner)).tokens.access_token;
    expect(
      (await toolResult(full, "save_health_profile", { consentGiven: true, conditions: ["Asthma"] })).isError,
    ).toBe(false);
    expect((await toolResult(full, "create_health_log", { title: "Secret Migraine Log", kind: "acute" })).isError).toBe(
      false,
    );
    const workers = await startWorkers(deps, { queues: ["chat"] });
    try {
      const chatOnly = (await connect(site.url, owner, { scopes: ["papers:read", "chat"] })).tokens.access_token;
      const narrow = await toolResult(chatOnly, "health_chat", { message: "Show my logs" });
      expect(narrow.isError).toBe(false);
      expect(narrow.text).not.toContain("Secret Migraine Log");
      expect(narrow.text).not.toContain("Asthma");
      expect(narrow.text).toContain("health:read");
      // The same question with every scope reads the log: the assertions above can fail.
      const wide = await toolResult(full, "health_chat", { message: "Show my logs" });
      expect(wide.text).toContain("Secret Migraine Log");
    } finally {
      await workers.close();
    }
  }, 60_000);
});

describe("dashboard: connected applications", () => {
  test("lists each connection with its client and scopes; disconnecting stops its tokens at the next request", async () => {
    const owner = await webUser(app, deps, { plan: "go" });
    const client = await registerClient(site.url, { client_name: "Dashboard Assistant" });
    const { tokens } = await connect(site.url, owner, { client, scopes: ["papers:read", "chat"] });
    const listed = await webCall(app, owner, "/api/dashboard/connections");
    expect(listed.status).toBe(200);
    const { connections } = (await listed.json()) as {
      connections: { id: string; clientName: string; scopes: string[]; redirectHosts: string[] }[];
    };
    expect(connections).toHaveLength(1);
    expect(connections[0]).toMatchObject({
      clientName: "Dashboard Assistant",
      scopes: ["papers:read", "chat"],
      redirectHosts: ["127.0.0.1:9"],
    });
    const id = connections[0]?.id as string;
    const stranger = await webUser(app, deps);
    expect((await webCall(app, stranger, `/api/dashboard/connections/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(200);
    const removed = await webCall(app, owner, `/api/dashboard/connections/${id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ id, revoked: true });
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(401);
    const refreshed = await tokenRequest(site.url, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(400);
    const after = (await (await webCall(app, owner, "/api/dashboard/connections")).json()) as {
      connections: unknown[];
    };
    expect(after.connections).toEqual([]);
  });

  test("the hourly sweep deletes expired records and keeps live ones", async () => {
    const { tokens } = await connect(site.url, user);
    await deps.sql`
      insert into oauth_records (kind, id, payload, expires_at)
      values ('Interaction', ${`expired-${Bun.randomUUIDv7()}`}, '{}', now() - interval '1 second')`;
    const { deleted } = await sweepOAuthRecords(deps);
    expect(deleted).toBeGreaterThanOrEqual(1);
    const [left] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_records where expires_at <= now()`;
    expect(left?.n).toBe(0);
    expect((await mcpWith(site.url, tokens.access_token, { method: "ping" })).status).toBe(200);
  });

  test("the database keeps no bearer value: tokens and codes are stored as hashes", async () => {
    const { tokens } = await connect(site.url, user);
    const rows = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_records
      where id = ${tokens.access_token} or id = ${tokens.refresh_token as string}
        or payload::text like ${`%${tokens.access_token}%`} or payload::text like ${`%${tokens.refresh_token}%`}`;
    expect(rows[0]?.n).toBe(0);
  });
});
