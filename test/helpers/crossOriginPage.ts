import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { announceIndexChange } from "../../search-index/answerCache";
import { indexUid } from "../../search-index/indexes";
import type { Deps } from "../../shared/context/deps";
import { applyIndexSettings } from "../../shared/indexing/settings";
import { toPaperDocument } from "../../shared/papers/search/document";
import type { Paper } from "../../shared/records/paper";
import { demoPapers } from "./indexes";

/**
 * A papers index of the file's own holding the first few demo papers (`ownIndexes` indexes all
 * 3,035, about 10 s here; a title search needs only a few).
 */
export async function fewPapersIndex(base: Deps, name: string): Promise<{ deps: Deps; papers: Paper[] }> {
  const prefix = `${base.env.MEILI_INDEX_PREFIX}${name}_`;
  await applyIndexSettings(base.meili, prefix);
  const papers = (await demoPapers()).slice(0, 20);
  // Waiting for this task also waits for the settings queued before it.
  await base.meili
    .index(indexUid(prefix, "papers"))
    .addDocuments(papers.map(toPaperDocument), { primaryKey: "pk" })
    .waitTask({ timeout: 25_000 });
  await announceIndexChange(base.redis, base.env.REDIS_PREFIX, indexUid(prefix, "papers"));
  return { deps: { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: prefix } }, papers };
}

/** What the page's MCP bundle puts on `globalThis`. */
interface PageMcp {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

// Exists only in the build's memory; its path makes bare imports resolve from this checkout.
const ENTRY = join(import.meta.dir, "crossOriginMcpEntry.ts");
const ENTRY_SOURCE = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
globalThis.mcp = { Client, StreamableHTTPClientTransport };
globalThis.mcpReady = true;
`;

/** The MCP SDK's client and streamable HTTP transport bundled for browsers, in memory. */
async function mcpClientBundle(): Promise<string> {
  const result = await Bun.build({ entrypoints: [ENTRY], files: { [ENTRY]: ENTRY_SOURCE }, target: "browser" });
  const output = result.outputs[0];
  if (!result.success || !output) throw new AggregateError(result.logs, "The page's MCP client bundle failed to build");
  return output.text();
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another origin</title>
<script type="module" src="/mcp-client.js"></script></head><body><main>A page elsewhere</main></body></html>`;

export interface PageOrigin {
  /** `http://localhost:<port>`: another host name and port than the API's `127.0.0.1`. */
  url: string;
  stop(): Promise<void>;
}

/** A tiny site of its own, standing for a third-party page: one HTML page and the MCP client script. */
export async function startPageOrigin(): Promise<PageOrigin> {
  const script = await mcpClientBundle();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    routes: {
      "/": new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
      "/mcp-client.js": new Response(script, { headers: { "content-type": "text/javascript; charset=utf-8" } }),
    },
    fetch: () => new Response("Not found", { status: 404 }),
  });
  return {
    url: `http://localhost:${server.port}`,
    stop: async () => {
      await server.stop(true);
    },
  };
}

export interface CorsWatch {
  /** What was reported so far, in order. */
  errors: string[];
  /** Resolves once an error with this text is reported (the network event may trail fetch's rejection). */
  reported(text: string): Promise<void>;
}

/**
 * Collects the page's CORS failures as Chromium's network layer reports them (`corsErrorStatus`:
 * the reason and the header or method it refused), and its "blocked by CORS policy" console errors.
 * Other failures (the SDK cancelling a body it does not read, a 405) are not CORS and are left out.
 */
export async function watchCorsErrors(page: Page): Promise<CorsWatch> {
  const errors: string[] = [];
  const waiting: { text: string; resolve: () => void }[] = [];
  const report = (error: string) => {
    errors.push(error);
    for (const waiter of waiting.filter((w) => error.includes(w.text))) waiter.resolve();
  };
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  cdp.on("Network.loadingFailed", (event) => {
    const cors = event.corsErrorStatus;
    if (cors) report(`${cors.corsError} ${cors.failedParameter}`);
  });
  page.on("console", (message) => {
    if (message.text().includes("CORS policy")) report(message.text());
  });
  return {
    errors,
    reported: (text) =>
      errors.some((error) => error.includes(text))
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ text, resolve })),
  };
}

/** Opens the page and waits until its module script has run. */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as { mcpReady?: boolean }).mcpReady === true);
}

export interface PageChat {
  status: number;
  chatId: string | null;
  requestId: string | null;
  contentType: string | null;
  body: string;
}

/** A streamed chat turn sent by the page's own fetch; the SSE body is read to its end. */
export function chatFromPage(page: Page, args: { api: string; key: string; message: string }): Promise<PageChat> {
  return page.evaluate(async ({ api, key, message }) => {
    const response = await fetch(`${api}/api/v1/health/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message, stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let body = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      body += decoder.decode(read.value, { stream: true });
    }
    return {
      status: response.status,
      chatId: response.headers.get("x-chat-id"),
      requestId: response.headers.get("x-request-id"),
      contentType: response.headers.get("content-type"),
      body,
    };
  }, args);
}

/** The `data:` payloads of an SSE body, in order. */
export function sseData(body: string): string[] {
  return body
    .split("\n\n")
    .flatMap((block) => block.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => line.slice("data: ".length));
}

export interface PageToolCall {
  serverName: string | undefined;
  isError: boolean;
  structuredContent: unknown;
}

/** The SDK client in the page: connect (initialize), call one tool, close. */
export function callToolFromPage(
  page: Page,
  args: { api: string; key: string; name: string; arguments: Record<string, unknown> },
): Promise<PageToolCall> {
  return page.evaluate(async ({ api, key, name, arguments: toolArguments }) => {
    const { Client, StreamableHTTPClientTransport } = (globalThis as unknown as { mcp: PageMcp }).mcp;
    const client = new Client({ name: "cross-origin-page", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${api}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name, arguments: toolArguments });
      return {
        serverName: client.getServerVersion()?.name,
        isError: result.isError === true,
        structuredContent: result.structuredContent,
      };
    } finally {
      await client.close();
    }
  }, args);
}

/** A raw fetch from the page: its status, or the error it rejected with (a refused preflight). */
export function fetchFromPage(
  page: Page,
  args: { url: string; method: string; headers: Record<string, string>; body?: string },
): Promise<{ status?: number; error?: { name: string; message: string } }> {
  return page.evaluate(async ({ url, method, headers, body }) => {
    try {
      const response = await fetch(url, { method, headers, body });
      await response.arrayBuffer();
      return { status: response.status };
    } catch (error) {
      return { error: { name: (error as Error).name, message: (error as Error).message } };
    }
  }, args);
}
