import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../../api/app";
import type { Deps } from "../../shared/deps";
import { TOOLS } from "../../shared/tools";
import { createTestAccount, type TestAccount } from "../helpers/http";
import { testDeps } from "../helpers/infra";

let deps: Deps;
let server: ReturnType<ReturnType<typeof createApp>["listen"]>;
let url: URL;
let account: TestAccount;

beforeAll(async () => {
  deps = await testDeps();
  server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
  url = new URL(`http://127.0.0.1:${server.server?.port}/api/mcp`);
  account = await createTestAccount(deps, "free");
});

afterAll(async () => {
  await server.stop();
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

describe("MCP endpoint with the official SDK client", () => {
  test("initialize, list tools with schemas and annotations, call a tool — authenticated by x-api-key", async () => {
    const client = await connect({ "x-api-key": account.apiKey });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBeBoolean();
    }
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
    await client.close();
  });

  test("a missing key is rejected with HTTP 401 before the transport runs", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    await expect(connect({})).rejects.toThrow();
  });
});
