import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { MODERN_PROTOCOL_VERSION, NEWEST_LEGACY_VERSION, PROTOCOL_VERSIONS } from "../../../api/mcp/protocol";
import type { Deps } from "../../../shared/context/deps";
import { publicUrl } from "../../../shared/core/env";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { createTestAccount, type TestAccount } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { connectMcp } from "../../helpers/mcpData";

/** The MCP endpoint over a real port: transport, auth, limits, CORS, protocol versions, discovery. */
const LIMIT = 3;
const SMALL: PlanTable = { ...PLANS, go: { ...PLANS.go, requestsPerHour: LIMIT } };

let deps: Deps;
let server: ReturnType<ReturnType<typeof createApp>["listen"]>;
let base: string;
let url: URL;
let account: TestAccount;

beforeAll(async () => {
  deps = await testDeps({ plans: SMALL });
  server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${server.server?.port}`;
  url = new URL(`${base}/api/mcp`);
  account = await createTestAccount(deps, "free");
});

afterAll(async () => {
  await server.stop();
});

const connect = (headers: Record<string, string>) => connectMcp(url, headers);

const JSON_RPC = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function rpc(body: unknown, headers: Record<string, string> = {}, key = account.apiKey): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...JSON_RPC, authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("MCP endpoint with the official SDK client", () => {
  test("initialize at the SDK's own version, list, call — authenticated by x-api-key", async () => {
    const client = await connect({ "x-api-key": account.apiKey });
    expect(client.getServerVersion()?.name).toBe("io.github.papers-health/mcp");
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(36);
    const result = await client.callTool({ name: "get_account", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ accountId: account.accountId, plan: "free" });
    await client.close();
  });

  test("bad arguments and unknown tools come back as isError results", async () => {
    const client = await connect({ authorization: `Bearer ${account.apiKey}` });
    const bad = await client.callTool({ name: "get_account", arguments: { surprise: true } });
    expect(bad.isError).toBe(true);
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain("tools/list");
    await client.close();
  });
});

describe("HTTP status paths", () => {
  test("a missing or wrong key is 401 before the transport runs", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: JSON_RPC,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {}, "phk_nope")).status).toBe(401);
    await expect(connect({})).rejects.toThrow();
  });

  test("GET and DELETE are 405 with Allow", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(url, { method, headers: { authorization: `Bearer ${account.apiKey}` } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });

  test("every POST counts against the hourly limit shared with REST; over it → 429 with Retry-After", async () => {
    const limited = await createTestAccount(deps, "go");
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect((await rpc(list, {}, limited.apiKey)).status).toBe(200);
    const rest = await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${limited.apiKey}` } });
    expect(rest.status).toBe(200);
    expect((await rpc(initialize("2025-06-18"), {}, limited.apiKey)).status).toBe(200);
    const over = await rpc(list, {}, limited.apiKey);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("CORS", () => {
  test.each(["/api/mcp", "/.well-known/mcp/server-card.json", "/.well-known/mcp.json"])(
    "preflight on %s: the spec's values plus the MCP headers of both eras and Last-Event-ID, no key needed",
    async (path) => {
      const response = await fetch(`${base}${path}`, {
        method: "OPTIONS",
        headers: {
          origin: "https://agent.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, authorization, mcp-protocol-version",
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
      // The spec's three first, as written; a browser MCP client sends the version after initialize.
      expect(response.headers.get("access-control-allow-headers")).toBe(
        "Content-Type, Authorization, x-api-key, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
      );
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    },
  );

  test("a preflight asking for Mcp-Param-* headers gets those allowed by name, and no other header it asks for", async () => {
    const response = await fetch(`${base}/api/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "mcp-method, mcp-name, mcp-param-region, x-evil, mcp-param-",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-headers")).toBe(
      "Content-Type, Authorization, x-api-key, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, mcp-param-region",
    );
  });
});

const LEGACY_VERSIONS = PROTOCOL_VERSIONS.filter((version) => version !== MODERN_PROTOCOL_VERSION);

describe("protocol versions", () => {
  test("2026-07-28 first, then the 2025 era with the spec's 2025-06-15", () => {
    expect(PROTOCOL_VERSIONS[0]).toBe("2026-07-28");
    expect(LEGACY_VERSIONS).toEqual(["2025-11-25", "2025-06-18", "2025-06-15", "2025-03-26", "2024-11-05"]);
  });

  test.each(LEGACY_VERSIONS)("initialize at %s is answered with that version", async (version) => {
    const response = await rpc(initialize(version));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
    expect(body.result.protocolVersion).toBe(version);
    expect(body.result.serverInfo.name).toBe("io.github.papers-health/mcp");
  });

  test("initialize is 2025-era only: asking it for 2026-07-28 or an unknown version gets the newest 2025 one", async () => {
    for (const asked of ["2026-07-28", "2023-01-01"]) {
      const body = (await (await rpc(initialize(asked))).json()) as { result: { protocolVersion: string } };
      expect(body.result.protocolVersion).toBe(NEWEST_LEGACY_VERSION);
    }
  });

  test("a later request with MCP-Protocol-Version: 2025-06-15 works (tools/list and tools/call)", async () => {
    const header = { "mcp-protocol-version": "2025-06-15" };
    const list = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, header);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(36);
    const callTool = await rpc(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_account", arguments: {} } },
      header,
    );
    expect(callTool.status).toBe(200);
    const result = ((await callTool.json()) as { result: { structuredContent: { plan: string } } }).result;
    expect(result.structuredContent.plan).toBe("free");
  });

  test("every 2025 version is accepted in the header; an unsupported one is a JSON-RPC 400 naming ours", async () => {
    for (const version of LEGACY_VERSIONS) {
      const response = await rpc({ jsonrpc: "2.0", id: 4, method: "tools/list" }, { "mcp-protocol-version": version });
      expect(response.status).toBe(200);
    }
    const bad = await rpc({ jsonrpc: "2.0", id: 5, method: "tools/list" }, { "mcp-protocol-version": "2024-10-07" });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { message: string } };
    expect(body.error.message).toContain("2025-06-15");
  });

  test("the 2026-07-28 header without the request's _meta envelope is -32602 with the request's id", async () => {
    const response = await rpc(
      { jsonrpc: "2.0", id: 6, method: "tools/list" },
      { "mcp-protocol-version": "2026-07-28" },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 6, error: { code: -32602 } });
  });
});

describe("discovery", () => {
  const PATHS = ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json", "/api/mcp/server-card"];

  test.each(PATHS)("%s serves the server card without a key", async (path) => {
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toContain("max-age=");
    const card = (await response.json()) as Record<string, unknown>;
    expect(card).toEqual({
      name: "io.github.papers-health/mcp",
      version: expect.any(String),
      title: "Papers & Health",
      description: expect.stringContaining("36 tools"),
      websiteUrl: publicUrl(deps.env),
      remotes: [
        {
          type: "streamable-http",
          url: `${publicUrl(deps.env)}/api/mcp`,
          supportedProtocolVersions: [...PROTOCOL_VERSIONS],
          headers: [{ name: "Authorization", description: expect.any(String), isRequired: true, isSecret: true }],
        },
      ],
    });
    expect(card.name as string).toMatch(/^[a-z0-9.-]+\/[a-z0-9._-]+$/);
    expect((card.remotes as { supportedProtocolVersions: string[] }[])[0]?.supportedProtocolVersions).toContain(
      "2025-06-15",
    );
  });

  test("the same ETag on every path; If-None-Match → 304 without a body", async () => {
    const tags = await Promise.all(PATHS.map(async (path) => (await fetch(`${base}${path}`)).headers.get("etag")));
    expect(new Set(tags).size).toBe(1);
    const etag = tags[0] as string;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const again = await fetch(`${base}${PATHS[0]}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const changed = await fetch(`${base}${PATHS[0]}`, { headers: { "if-none-match": '"other"' } });
    expect(changed.status).toBe(200);
  });
});
