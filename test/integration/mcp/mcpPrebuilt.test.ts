import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { PrebuiltJson } from "../../../api/mcp/prebuiltJson";
import type { Deps } from "../../../shared/context/deps";
import { jsonBytesOf, papersOf } from "../../../shared/papers/page";
import { createTestAccount, json, mcpCall, modernMcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

/**
 * A search page's papers reach an MCP answer as the bytes they were cached as (api/mcp/prebuiltJson.ts):
 * the answer must be the same JSON the SDK would have written, in both eras, hit or miss, with no
 * placeholder left in it; and the papers every caller of a cached page shares cannot be changed.
 */
let deps: Deps;
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  deps = await ownIndexes(await testDeps(), "mcpprebuilt", { conditions: false });
  app = createApp(deps);
  account = await createTestAccount(deps, "pro");
}, 60_000);

const key = () => ({ authorization: `Bearer ${account.apiKey}` });
const ARGS = { q: "quantum", limit: 7 };
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are read field by field
type Answer = { result?: any; error?: unknown };

async function restPage() {
  const response = await app.handle(
    new Request(`http://localhost/api/v1/papers/search?q=${ARGS.q}&limit=${ARGS.limit}`, { headers: key() }),
  );
  expect(response.status).toBe(200);
  return json<{ data: unknown[]; pagination: unknown }>(response);
}

const eras = {
  "2025-11-25": () =>
    mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_papers_by_title", arguments: ARGS } },
      key(),
    ),
  "2026-07-28": () => modernMcpCall(app, "tools/call", { name: "search_papers_by_title", arguments: ARGS }, key()),
};

describe.each(Object.entries(eras))("era %s", (_era, ask) => {
  test("a title search's structured result is REST's page, on the first call and on cache hits", async () => {
    const rest = await restPage();
    expect(rest.data.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      const response = await ask();
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain("mcp-prebuilt-");
      const { result } = JSON.parse(text) as Answer;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ data: rest.data, pagination: rest.pagination });
      expect(result.content[0].text).toContain((rest.data[0] as { id: string }).id);
    }
  });
});

describe("the pieces", () => {
  test("papersOf parses a page's bytes once, frozen, and knows the bytes it came from", () => {
    const data = Buffer.from(JSON.stringify([{ id: "1", title: "A", authorsParsed: [{ last: "B" }] }]));
    const page = { data, pagination: { page: 0, limit: 1, hasMore: false, nextPage: null } };
    const papers = papersOf(page);
    expect(papersOf(page)).toBe(papers);
    expect(jsonBytesOf(papers)).toBe(data);
    expect(jsonBytesOf([...papers])).toBeUndefined();
    expect(Object.isFrozen(papers[0]?.authorsParsed[0])).toBe(true);
    expect(() => {
      (papers[0] as { title: string }).title = "changed";
    }).toThrow();
  });

  test("splice puts each part where its placeholder was, in order, and leaves the rest as written", () => {
    const prebuilt = new PrebuiltJson();
    const first = prebuilt.placeholder(Buffer.from("[1,2]"));
    const second = prebuilt.placeholder(Buffer.from('{"x":"y"}'));
    prebuilt.placeholder(Buffer.from("[3]")); // never written into the answer
    const written = JSON.stringify({ b: second, a: first, text: "mcp-prebuilt-lookalike" });
    const spliced = Buffer.concat(prebuilt.splice(Buffer.from(written))).toString();
    expect(JSON.parse(spliced)).toEqual({ b: { x: "y" }, a: [1, 2], text: "mcp-prebuilt-lookalike" });
    expect(new PrebuiltJson().splice(Buffer.from("{}")).map((piece) => Buffer.from(piece).toString())).toEqual(["{}"]);
  });
});
