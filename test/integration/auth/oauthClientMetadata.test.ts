import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { type Site, startSite } from "../../helpers/browser";
import {
  type ClientMetadataServer,
  clientDocument,
  oauthFetchEnv,
  startClientMetadataServer,
} from "../../helpers/clientMetadataServer";
import { logLines, testDeps } from "../../helpers/infra";
import { authorizeAs, authorizeUrl, exchangeCode, mcpWith, pkcePair, type RegisteredClient } from "../../helpers/oauth";
import { type WebUser, webUser } from "../../helpers/website";

/**
 * Clients known by a client ID metadata document (their client_id is the document's https URL),
 * over real HTTP against real Postgres and Redis, with the documents on a local https server: the
 * whole authorization with PKCE ends in a token the MCP endpoint takes, the response names the
 * issuer (RFC 9207), documents are cached, and every unsafe or invalid document is refused with an
 * OAuth error.
 */
const TIMEOUT_MS = 1000;
let docs: ClientMetadataServer;
let site: Site;
let strictSite: Site;
let user: WebUser;

beforeAll(async () => {
  docs = await startClientMetadataServer();
  const base = await testDeps();
  site = await startSite({ ...base, env: { ...base.env, ...oauthFetchEnv(docs, TIMEOUT_MS) } });
  // The same, without the development allowance for loopback addresses.
  strictSite = await startSite({ ...base, env: { ...base.env, OAUTH_FETCH_CA_FILE: docs.caFile } });
  user = await webUser(createApp(site.deps), site.deps, { plan: "go" });
});

afterAll(async () => {
  await site?.stop();
  await strictSite?.stop();
  await docs?.stop();
});

const clientFor = (clientId: string): RegisteredClient => ({ client_id: clientId, redirect_uris: [] });

/** Why the server's last fetch of `url` failed, as it logged it (the client is told only that it failed). */
function loggedReason(url: string): string | undefined {
  const lines = logLines.filter((line) => line.includes("oauth outbound fetch failed")).map((line) => JSON.parse(line));
  return lines.findLast((line) => line.url === url)?.reason;
}

/**
 * An authorization request for `clientId` that the server must refuse with an OAuth error page
 * (the client is unknown, so nothing may go to a redirect_uri); `reason` is the logged fetch failure.
 */
async function expectRefused(clientId: string, options: { at?: string; reason?: RegExp } = {}): Promise<string> {
  const request = authorizeUrl(options.at ?? site.url, { client: clientFor(clientId) });
  const response = await fetch(request, { redirect: "manual" });
  const body = await response.text();
  expect(response.headers.get("location")).toBeNull();
  expect(response.status).toBe(400);
  expect(body).toMatch(/invalid_client(_metadata)?:/);
  if (options.reason) expect(loggedReason(clientId)).toMatch(options.reason);
  return body;
}

describe("metadata", () => {
  test("the authorization server says it takes metadata documents and sends iss; registration stays", async () => {
    const metadata = (await (await fetch(`${site.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata).toMatchObject({
      issuer: site.url,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${site.url}/oauth/register`,
      token_endpoint_auth_methods_supported: expect.arrayContaining(["none"]),
    });
    const resource = await (await fetch(`${site.url}/.well-known/oauth-protected-resource/api/mcp`)).json();
    expect(resource).toMatchObject({ resource: `${site.url}/api/mcp`, authorization_servers: [site.url] });
  });
});

describe("a client known by its metadata document", () => {
  test("authorizes with PKCE, gets iss back, trades the code, and its token works on /api/mcp", async () => {
    const client = clientFor(docs.serveClient("/full/client.json"));
    const { verifier, challenge } = pkcePair();
    const back = await authorizeAs(site.url, user, { client, challenge });
    expect(back.searchParams.get("iss")).toBe(site.url);
    expect(back.searchParams.get("state")).toBe("state-1");
    const code = back.searchParams.get("code");
    expect(code).toBeString();
    const tokens = await exchangeCode(site.url, client, code as string, verifier);
    expect(tokens.refresh_token).toBeString();
    const initialize = await mcpWith(site.url, tokens.access_token, {
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "metadata-document-test", version: "1.0.0" },
      },
    });
    expect(initialize.status).toBe(200);
    const list = await mcpWith(site.url, tokens.access_token, { method: "tools/list" });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.length).toBeGreaterThan(0);
    // One fetch served the authorization and the token request.
    expect(docs.hits("/full/client.json")).toBe(1);
  });

  test("a second authorization within the cache lifetime does not fetch the document again", async () => {
    const client = clientFor(docs.serveClient("/cached/client.json"));
    for (let round = 0; round < 2; round++) {
      const back = await authorizeAs(site.url, user, { client });
      expect(back.searchParams.get("code")).toBeString();
      expect(back.searchParams.get("iss")).toBe(site.url);
    }
    expect(docs.hits("/cached/client.json")).toBe(1);
  });

  test("a denial also goes back with iss", async () => {
    const client = clientFor(docs.serveClient("/denied/client.json"));
    const back = await authorizeAs(site.url, user, { client }, { allow: false });
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("iss")).toBe(site.url);
  });
});

describe("documents that are refused", () => {
  test("unreachable: nothing listening, or not found; a failure is remembered, not fetched again at once", async () => {
    await expectRefused("https://127.0.0.1:1/client.json", { reason: /^unreachable$/ });
    const missing = docs.url("/missing/client.json");
    await expectRefused(missing, { reason: /HTTP 404/ });
    await expectRefused(missing, { reason: /HTTP 404/ });
    expect(docs.hits("/missing/client.json")).toBe(1);
  });

  test("oversized: more than a registration's 16 KiB, with or without Content-Length", async () => {
    await expectRefused(docs.serveClient("/big/client.json", { padding: "x".repeat(20_000) }), {
      reason: /larger than 16384 bytes/,
    });
    const streamed = docs.url("/big/streamed.json");
    const text = JSON.stringify(clientDocument(streamed, { padding: "x".repeat(20_000) }));
    docs.serve(
      "/big/streamed.json",
      () => new Response(new Blob([text]).stream(), { headers: { "content-type": "application/json" } }),
    );
    await expectRefused(streamed, { reason: /larger than 16384 bytes/ });
    expect(docs.hits("/big/client.json") + docs.hits("/big/streamed.json")).toBe(2);
  });

  test("slow: no complete answer within OAUTH_FETCH_TIMEOUT_MS", async () => {
    const id = docs.url("/slow/client.json");
    // The document is held until the refusal has come back, so only the timeout can have ended it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    docs.serve("/slow/client.json", async () => {
      await held;
      return Response.json(clientDocument(id));
    });
    await expectRefused(id, { reason: new RegExp(`no complete answer within ${TIMEOUT_MS} ms`) });
    release();
    expect(docs.hits("/slow/client.json")).toBe(1);
  });

  test("at a private, unique-local or IPv4-mapped private address: refused without connecting", async () => {
    const cases: [string, string][] = [
      ["https://10.0.0.1/client.json", "private"],
      ["https://169.254.169.254/client.json", "link-local"],
      ["https://[fd00::1]/client.json", "unique-local"],
      ["https://[::ffff:192.168.1.1]/client.json", "private"],
      ["https://[ff02::1]/client.json", "multicast"],
    ];
    for (const [id, kind] of cases) await expectRefused(id, { reason: new RegExp(`a ${kind} address$`) });
  });

  test("on loopback without the development allowance (by address and by name)", async () => {
    const id = docs.serveClient("/strict/client.json");
    await expectRefused(id, { at: strictSite.url, reason: /127\.0\.0\.1, a loopback address/ });
    const byName = id.replace("127.0.0.1", "localhost");
    await expectRefused(byName, { at: strictSite.url, reason: /^localhost resolves to .*, a loopback address/ });
    expect(docs.hits("/strict/client.json")).toBe(0);
  });

  test("not https: an http client_id is not a metadata document, so the client is unknown", async () => {
    const id = docs.serveClient("/plain/client.json").replace("https:", "http:");
    await expectRefused(id);
    expect(docs.hits("/plain/client.json")).toBe(0);
  });

  test("a client_id in the document that is not its URL", async () => {
    const id = docs.serve("/other/client.json", clientDocument(docs.url("/elsewhere/client.json")));
    expect(await expectRefused(id)).toContain("client_id");
  });

  test("a document that fails the registration policy or asks for a client secret", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["/policy/redirect.json", { redirect_uris: ["http://attacker.example/cb"] }],
      ["/policy/name.json", { client_name: "n".repeat(201) }],
      ["/policy/secret.json", { token_endpoint_auth_method: "client_secret_basic" }],
      ["/policy/jwt.json", { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [] } }],
    ];
    for (const [path, overrides] of cases) await expectRefused(docs.serveClient(path, overrides));
  });

  test("a URL without a path", async () => {
    await expectRefused(`${docs.origin}/`);
    expect(docs.hits("/")).toBe(0);
  });
});
