import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { createApp } from "../../../api/app";
import { upsertPapers } from "../../../shared/papers/repository";
import type { Paper } from "../../../shared/records/paper";
import { TOOLS } from "../../../shared/toolCatalog";
import { type Site, startSite } from "../../helpers/browser";
import {
  type ClientMetadataServer,
  oauthFetchEnv,
  startClientMetadataServer,
} from "../../helpers/clientMetadataServer";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { connectThroughOAuth, modernClient, TestOAuthClient } from "../../helpers/mcpOauth";
import { authorizeAt, CALLBACK } from "../../helpers/oauth";
import { type WebUser, webUser } from "../../helpers/website";

/**
 * A 2026-07-28 agent on the official v2 client: version negotiation `auto`, and OAuth with a client
 * ID metadata document (its client_id is the document's https URL, served here) instead of dynamic
 * registration. The user's consent runs over HTTP with the website's session; the client checks
 * the response's `iss` (RFC 9207) when it redeems the code.
 */
let docs: ClientMetadataServer;
let site: Site;
let user: WebUser;
let paper: Paper;
let documentUrl: string;

beforeAll(async () => {
  docs = await startClientMetadataServer();
  const base = await testDeps();
  site = await startSite({ ...base, env: { ...base.env, ...oauthFetchEnv(docs) } });
  user = await webUser(createApp(site.deps), site.deps, { plan: "go" });
  paper = (await demoPapers())[0] as Paper;
  await upsertPapers(site.deps.sql, [paper]);
  documentUrl = docs.serveClient("/agents/modern.json", { client_name: "Modern agent (test)" });
}, 60_000);

afterAll(async () => {
  await site?.stop();
  await docs?.stop();
});

const mcpUrl = () => new URL(`${site.url}/api/mcp`);

describe("the v2 client over OAuth with a client ID metadata document", () => {
  test("authorizes without registering, negotiates 2026-07-28, and uses every kind of MCP feature", async () => {
    const { client, provider, callback } = await connectThroughOAuth(site.url, user, documentUrl);
    // No registration: the client id the SDK keeps is the document's URL.
    expect(provider.information?.client_id ?? documentUrl).toBe(documentUrl);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get("client_id")).toBe(documentUrl);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    // The server learned the client from its document, fetched when the authorization began.
    expect(docs.hits("/agents/modern.json")).toBeGreaterThanOrEqual(1);
    expect(callback.searchParams.get("iss")).toBe(site.url);
    expect(provider.saved?.access_token).toBeString();
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    const account = await client.callTool({ name: "get_account", arguments: {} });
    expect(account.structuredContent).toMatchObject({ accountId: user.accountId, plan: "go" });
    const read = await client.readResource({ uri: `paper://${paper.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: paper.id });
    const saved = await client.callTool({
      name: "save_health_profile",
      arguments: { consentGiven: true, conditions: ["Asthma"], medications: [] },
    });
    expect(saved.isError).toBeFalsy();
    const prompt = await client.getPrompt({ name: "prepare_doctor_visit", arguments: {} });
    expect(JSON.stringify(prompt.messages)).toContain("Asthma");
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "paper://{arxivId}" },
      argument: { name: "arxivId", value: paper.id.slice(0, -1) },
    });
    expect(completion.completion.values).toContain(paper.id);
    await client.close();
  });

  test("a callback whose iss names another issuer is refused before the code is redeemed", async () => {
    const provider = new TestOAuthClient(CALLBACK, documentUrl);
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(modernClient().connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await authorizeAt(site.url, user, (provider.authorizationUrl as URL).href);
    const forged = new URLSearchParams(back.searchParams);
    forged.set("iss", "https://attacker.example");
    await expect(transport.finishAuth(forged)).rejects.toThrow();
    expect(provider.saved).toBeUndefined();
  });
});
