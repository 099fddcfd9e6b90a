import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { createApp } from "../../../api/app";
import { errorHandler } from "../../../api/plugins/errors";
import { LARGE_BODY_BYTES, largeBodies, responseBody } from "../../../api/plugins/largeBodies";
import { freePort } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { insertChatWithMessage } from "../../../shared/conversations/repository";
import { indexPapers } from "../../../shared/indexing/papers";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { createTestAccount } from "../../helpers/http";
import { demoPapers } from "../../helpers/indexes";
import { logLines, testDeps, testLog } from "../../helpers/infra";

/** One raw HTTP/1.1 exchange, so the framing on the wire (Content-Length or chunked) is visible. */
async function wire(port: number, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return {
    status: response.status,
    length: response.headers.get("content-length"),
    chunked: response.headers.get("transfer-encoding") === "chunked",
    text: await response.text(),
  };
}

const bigItems = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, text: `item ${i} `.repeat(20) }));

describe("large bodies leave as a stream", () => {
  test("responseBody: small bodies as given, large ones (counted in UTF-8 bytes) as one chunk with the same bytes", async () => {
    expect(responseBody("small")).toBe("small");
    const small = new Uint8Array(LARGE_BODY_BYTES - 1);
    expect(responseBody(small)).toBe(small);
    // 7,000 "é" are 7,000 UTF-16 units but 14,000 UTF-8 bytes: above the threshold.
    const accented = "é".repeat(7000);
    const streamed = responseBody(accented);
    expect(streamed).toBeInstanceOf(ReadableStream);
    expect(await new Response(streamed as ReadableStream).text()).toBe(accented);
  });

  describe("over a real socket", () => {
    let server: { stop: () => unknown } | undefined;
    let port = 0;
    beforeAll(() => {
      port = freePort();
      const app = new Elysia()
        .use(errorHandler(testLog))
        .use(largeBodies())
        .get("/small", () => ({ items: bigItems(2) }))
        .get("/large", () => ({ items: bigItems(200) }))
        .get("/created", ({ set }) => {
          set.status = 201;
          set.headers["x-kept"] = "yes";
          return { items: bigItems(200) };
        })
        .get("/small-typed", ({ set }) => {
          set.status = 201;
          set.headers["content-type"] = "application/vnd.test+json";
          return { items: bigItems(2) };
        })
        .get("/typed", ({ set }) => {
          set.headers["content-type"] = "application/vnd.test+json";
          return { items: bigItems(200) };
        })
        .get("/invalid", () => ({ items: bigItems(200) }) as never, {
          response: t.Object({ items: t.Array(t.Object({ id: t.String() })) }),
        })
        .listen({ hostname: "127.0.0.1", port });
      server = app.server ?? undefined;
    });
    afterAll(() => server?.stop());

    test("a small JSON answer keeps its Content-Length", async () => {
      const small = await wire(port, "/small");
      expect(small.status).toBe(200);
      expect(small.chunked).toBe(false);
      expect(Number(small.length)).toBe(Buffer.byteLength(small.text));
      expect(JSON.parse(small.text)).toEqual({ items: bigItems(2) });
      // Serialized once by the hook and handed back to Elysia as text: still typed as JSON.
      const response = await fetch(`http://127.0.0.1:${port}/small`);
      expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
      const typed = await fetch(`http://127.0.0.1:${port}/small-typed`);
      expect(typed.status).toBe(201);
      expect(typed.headers.get("content-type")).toBe("application/vnd.test+json");
      expect(await typed.json()).toEqual({ items: bigItems(2) });
    });

    test("a large one is chunked, with the same JSON, status and headers", async () => {
      const large = await wire(port, "/large");
      expect(large.status).toBe(200);
      expect(large.chunked).toBe(true);
      expect(large.length).toBeNull();
      expect(Buffer.byteLength(large.text)).toBeGreaterThanOrEqual(LARGE_BODY_BYTES);
      expect(JSON.parse(large.text)).toEqual({ items: bigItems(200) });
      const response = await fetch(`http://127.0.0.1:${port}/created`);
      expect(response.status).toBe(201);
      expect(response.headers.get("x-kept")).toBe("yes");
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(await response.json()).toEqual({ items: bigItems(200) });
    });

    test("a route's own content type is kept", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/typed`);
      expect(response.headers.get("transfer-encoding")).toBe("chunked");
      expect(response.headers.get("content-type")).toBe("application/vnd.test+json");
      expect(await response.json()).toEqual({ items: bigItems(200) });
    });

    test("response validation still runs first: an invalid large answer is a 500, never sent nor logged", async () => {
      const invalid = await wire(port, "/invalid");
      expect(invalid.status).toBe(500);
      const { code, requestId } = JSON.parse(invalid.text).error;
      expect(code).toBe("INTERNAL");
      expect(invalid.text).not.toContain("item 199");
      const logged = logLines.filter((line) => line.includes(requestId) && line.includes("request failed"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain("does not match its schema at /items/0/id");
      expect(logged[0]).not.toContain("item 1");
    });
  });

  describe("the API", () => {
    let deps: Deps;
    let port = 0;
    let apiKey = "";
    let chatId = "";
    let server: { stop: () => unknown } | undefined;
    const LONG_MESSAGE = "How long does a fever last? ".repeat(800);
    beforeAll(async () => {
      const base = await testDeps();
      deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: `${base.env.MEILI_INDEX_PREFIX}large_` } };
      await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX);
      const papers = (await demoPapers()).slice(0, 300);
      await indexPapers(deps, papers);
      const account = await createTestAccount(deps, "pro");
      apiKey = account.apiKey;
      chatId = Bun.randomUUIDv7();
      await insertChatWithMessage(
        deps.sql,
        { id: chatId, accountId: account.accountId, surface: "health", title: "Long" },
        { id: `msg_${Bun.randomUUIDv7()}`, role: "user", parts: [{ type: "text", text: LONG_MESSAGE }], metadata: {} },
      );
      port = freePort();
      server = createApp(deps).listen({ hostname: "127.0.0.1", port }).server ?? undefined;
    }, 60_000);
    afterAll(() => server?.stop());

    test("a large search page is chunked and carries every header; a small one keeps its length", async () => {
      const auth = { authorization: `Bearer ${apiKey}` };
      const body = { searchFilterString: { cat: "hep-th" }, limit: 100 };
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/papers/search`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("transfer-encoding")).toBe("chunked");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("ratelimit-limit")).toBe("3600");
      const page = (await response.json()) as { data: { categories: string[] }[] };
      expect(page.data.length).toBeGreaterThan(10);
      for (const paper of page.data) expect(paper.categories).toContain("hep-th");
      const small = await wire(port, "/api/v1/papers/search?q=quantum&limit=1", auth);
      expect(small.status).toBe(200);
      expect(small.chunked).toBe(false);
      expect(Number(small.length)).toBe(Buffer.byteLength(small.text));
    });

    test("a large stored conversation (a plain object through the app's hooks) is chunked; HEAD keeps its length", async () => {
      const auth = { authorization: `Bearer ${apiKey}` };
      const conversation = await wire(port, `/api/v1/health/chat/${chatId}`, auth);
      expect(conversation.status).toBe(200);
      expect(conversation.chunked).toBe(true);
      const body = JSON.parse(conversation.text) as { id: string; messages: { parts: { text: string }[] }[] };
      expect(body.id).toBe(chatId);
      expect(body.messages[0]?.parts[0]?.text).toBe(LONG_MESSAGE);
      const head = await fetch(`http://127.0.0.1:${port}/api/v1/health/chat/${chatId}`, {
        method: "HEAD",
        headers: auth,
      });
      expect(head.status).toBe(200);
      expect(head.headers.get("transfer-encoding")).toBeNull();
      expect(Number(head.headers.get("content-length"))).toBe(Buffer.byteLength(conversation.text));
    });

    test("a large MCP answer is chunked and keeps the transport's and the API's headers", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          origin: "https://elsewhere.example",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "search_papers_advanced", arguments: { filters: { cat: "hep-th" }, limit: 50 } },
        }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("transfer-encoding")).toBe("chunked");
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("x-request-id")).toStartWith("req_");
      const text = await response.text();
      expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(LARGE_BODY_BYTES);
      const result = (JSON.parse(text) as { result: { structuredContent: { data: unknown[] } } }).result;
      expect(result.structuredContent.data.length).toBeGreaterThan(10);
    });
  });
});
