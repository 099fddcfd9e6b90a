import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page, Response as PageResponse } from "playwright-core";
import type { Paper } from "../../shared/records/paper";
import { startWorkers, type Workers } from "../../workers/runner";
import { launchChromium, type Site, startSite } from "../helpers/browser";
import {
  type CorsWatch,
  callToolFromPage,
  chatFromPage,
  fetchFromPage,
  fewPapersIndex,
  openPage,
  type PageOrigin,
  sseData,
  startPageOrigin,
  watchCorsErrors,
} from "../helpers/crossOriginPage";
import { createTestAccount } from "../helpers/http";
import { testDeps } from "../helpers/infra";

/**
 * A page on another origin uses the API as a third-party web app would, in headless Chromium: a
 * streamed health chat through its own fetch, and the MCP SDK's client bundled into the page. The
 * browser enforces CORS (preflights, exposed headers), so what the page can read is what the policy
 * allows; a header outside the policy must be refused.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let site: Site;
let origin: PageOrigin;
let workers: Workers;
let browser: Browser;
let page: Page;
let key: string;
/** An indexed paper the page's MCP client searches for by title. */
let paper: Paper;
/** The CORS failures Chromium reports, live. */
let cors: CorsWatch;

beforeAll(async () => {
  // A few papers of its own to search; chat workers so turns run.
  const indexed = await fewPapersIndex(await testDeps(), "crossorigin");
  paper = indexed.papers[0] as Paper;
  site = await startSite(indexed.deps);
  workers = await startWorkers(site.deps, { queues: ["chat"] });
  const account = await createTestAccount(site.deps, "go");
  key = account.apiKey;
  const consent = await fetch(`${site.url}/api/v1/health/profile`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ consentGiven: true }),
  });
  if (consent.status !== 200) throw new Error(`consent failed: ${consent.status} ${await consent.text()}`);
  origin = await startPageOrigin();
  browser = await launchChromium();
  page = await browser.newPage();
  cors = await watchCorsErrors(page);
  await openPage(page, origin.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await origin?.stop();
  await workers?.close();
  await site?.stop();
});

describe("a page on another origin", () => {
  test("the page and the API are different origins", () => {
    expect(new URL(page.url()).origin).toBe(origin.url);
    expect(new URL(origin.url).origin).not.toBe(new URL(site.url).origin);
  });

  test("streams a health chat: reads X-Chat-Id through CORS and the SSE body to [DONE]", async () => {
    cors.errors.length = 0;
    const seen = await chatFromPage(page, { api: site.url, key, message: "Show my logs" });
    expect(seen.status).toBe(200);
    expect(seen.contentType).toContain("text/event-stream");
    // Readable only because the policy exposes them; a cross-origin page sees null otherwise.
    expect(seen.chatId).toMatch(UUID);
    expect(seen.requestId).toBeTruthy();
    const data = sseData(seen.body);
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line) as { type: string; toolName?: string });
    expect(chunks[0]?.type).toBe("start");
    expect(chunks.at(-1)?.type).toBe("finish");
    // The offline model answered "Show my logs" with the logs tool, run on the server.
    expect(chunks.some((chunk) => chunk.type === "tool-input-available" && chunk.toolName === "list_health_logs")).toBe(
      true,
    );
    expect(cors.errors).toEqual([]);
    // The id the page read names the stored conversation.
    const stored = await fetch(`${site.url}/api/v1/health/chat/${seen.chatId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stored.status).toBe(200);
    const conversation = (await stored.json()) as { title: string; messages: { role: string }[] };
    expect(conversation.title).toBe("Show my logs");
    expect(conversation.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  }, 30_000);

  test("the MCP SDK client in the page initializes and calls a tool, sending MCP-Protocol-Version", async () => {
    cors.errors.length = 0;
    // Several words of one paper's title: it must be among the matches.
    const words = paper.title.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word));
    expect(words.length).toBeGreaterThan(0);
    const mcpRequests: { method: string; protocolVersion: string | undefined; status: number | undefined }[] = [];
    const onResponse = (response: PageResponse) => {
      const request = response.request();
      if (new URL(request.url()).pathname !== "/api/mcp") return;
      const protocolVersion = request.headers()["mcp-protocol-version"];
      mcpRequests.push({ method: request.method(), protocolVersion, status: response.status() });
    };
    page.on("response", onResponse);
    try {
      const result = await callToolFromPage(page, {
        api: site.url,
        key,
        name: "search_papers_by_title",
        arguments: { q: words.slice(0, 6).join(" "), limit: 100 },
      });
      expect(result.serverName).toBe("io.github.papers-health/mcp");
      expect(result.isError).toBe(false);
      const found = result.structuredContent as { data: { id: string }[] };
      expect(found.data.map((match) => match.id)).toContain(paper.id);
    } finally {
      page.off("response", onResponse);
    }
    expect(cors.errors).toEqual([]);
    // Calls after initialize carried the version header: the preflight's allow-list (fresh or
    // cached from initialize's) admitted it, else Chromium would have refused them.
    const versioned = mcpRequests.filter((request) => request.protocolVersion !== undefined);
    expect(versioned.some((request) => request.method === "POST" && request.status === 200)).toBe(true);
  }, 30_000);

  test("a request header outside the policy fails the preflight: fetch rejects with TypeError", async () => {
    cors.errors.length = 0;
    const request = {
      url: `${site.url}/api/mcp`,
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    };
    // The same request without the extra header succeeds, so only the header is refused.
    const allowed = await fetchFromPage(page, request);
    expect(allowed).toEqual({ status: 200 });
    expect(cors.errors).toEqual([]);
    const refused = await fetchFromPage(page, { ...request, headers: { ...request.headers, "x-not-allowed": "1" } });
    expect(refused.status).toBeUndefined();
    expect(refused.error?.name).toBe("TypeError");
    // Chromium names the refused header, both to the network layer and on the console.
    await cors.reported("HeaderDisallowedByPreflightResponse x-not-allowed");
    await cors.reported("Request header field x-not-allowed is not allowed by Access-Control-Allow-Headers");
  }, 30_000);
});
