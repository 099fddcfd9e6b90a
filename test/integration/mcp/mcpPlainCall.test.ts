import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { isPlainLegacyCall } from "../../../api/mcp/plainCall";
import type { Deps } from "../../../shared/context/deps";
import { createTestAccount, mcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

/**
 * The everyday 2025 request skips the SDK's HTTP transport (api/mcp/plainCall.ts). It must answer
 * exactly as the transport does: the same request sent the SDK's way (an empty `_meta` is enough to
 * leave the plain path) gets the same status, content type and JSON-RPC answer. What is not plain
 * still gets the transport's own refusals.
 */
let deps: Deps;
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  deps = await ownIndexes(await testDeps(), "mcpplain", { conditions: false });
  app = createApp(deps);
  account = await createTestAccount(deps, "pro");
}, 60_000);

const key = () => ({ authorization: `Bearer ${account.apiKey}` });
// Objects, not rows: bun passes a `done` callback in place of a row's missing last element.
const MESSAGES: { method: string; params?: Record<string, unknown> }[] = [
  { method: "tools/list" },
  { method: "tools/call", params: { name: "search_papers_by_title", arguments: { q: "quantum", limit: 3 } } },
  { method: "tools/call", params: { name: "search_papers_by_title", arguments: { q: "" } } },
  { method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
  { method: "prompts/list" },
  { method: "resources/templates/list" },
  { method: "ping" },
  { method: "server/discover" },
  { method: "no/such/method" },
];

async function answer(message: object, headers: Record<string, string> = {}) {
  const response = await mcpCall(app, message, { ...key(), ...headers });
  const body = (await response.json()) as { id?: unknown };
  return { status: response.status, type: response.headers.get("content-type"), body };
}

describe("a plain 2025 request answers as the SDK's transport does", () => {
  test.each(MESSAGES)("$method", async ({ method, params }) => {
    const plain = { jsonrpc: "2.0", id: 7, method, ...(params ? { params } : {}) };
    const viaSdk = { ...plain, params: { ...params, _meta: {} } };
    expect(isPlainLegacyCall(new Request("http://x", { headers: plainHeaders() }), plain)).toBe(true);
    expect(isPlainLegacyCall(new Request("http://x", { headers: plainHeaders() }), viaSdk)).toBe(false);
    const fast = await answer(plain);
    const sdk = await answer(viaSdk);
    expect(fast).toEqual(sdk);
    expect(fast.body.id).toBe(7);
  });

  test("with a 2025 MCP-Protocol-Version header, as a client sends after initialize", async () => {
    const plain = { jsonrpc: "2.0", id: "a", method: "tools/list" };
    const headers = { "mcp-protocol-version": "2025-06-18" };
    expect(await answer(plain, headers)).toEqual(await answer({ ...plain, params: { _meta: {} } }, headers));
  });
});

describe("what is not plain keeps the transport's answers", () => {
  test("a request that does not accept event streams: 406", async () => {
    const response = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        ...key(),
        accept: "application/json",
      },
    );
    expect(response.status).toBe(406);
  });

  test("an unknown protocol version header: 400", async () => {
    const response = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        ...key(),
        "mcp-protocol-version": "1999-01-01",
      },
    );
    expect(response.status).toBe(400);
  });

  test("a message with a key JSON-RPC does not have is not taken as plain", () => {
    const headers = plainHeaders();
    expect(
      isPlainLegacyCall(new Request("http://x", { headers }), { jsonrpc: "2.0", id: 1, method: "ping", x: 1 }),
    ).toBe(false);
    expect(isPlainLegacyCall(new Request("http://x", { headers }), [{ jsonrpc: "2.0", id: 1, method: "ping" }])).toBe(
      false,
    );
    expect(isPlainLegacyCall(new Request("http://x", { headers }), { jsonrpc: "2.0", id: 1.5, method: "ping" })).toBe(
      false,
    );
    expect(
      isPlainLegacyCall(new Request("http://x", { headers }), {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {},
      }),
    ).toBe(false);
  });
});

function plainHeaders(): Record<string, string> {
  return { accept: "application/json, text/event-stream", "content-type": "application/json" };
}
