import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { policyFor } from "../../../api/plugins/access";
import { bodyLimitFor } from "../../../api/plugins/bodyLimit";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { modelCatalog, OFFLINE_MODEL } from "../../../shared/llm/models";
import { uploadKey } from "../../../shared/storage/storage";
import { startWorkers, type Workers } from "../../../workers/runner";
import { type ProviderReplay, startProviderReplay } from "../../fixtures/providers/replayServer";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, errorOf, json, mcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { type Presigned, presign, put } from "../../helpers/uploads";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";
import { type WebUser, webUser } from "../../helpers/website";

/**
 * Response headers on every operation, request body limits on every route that takes a body,
 * share links without profile data, and signed upload URLs that cannot be replayed or retargeted
 * (with test/integration/uploads/uploads.test.ts, which covers tampered, expired and wrong-type URLs).
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let upstream: UpstreamFixtures;
let provider: ProviderReplay;
let account: TestAccount;
let web: WebUser;

const MARKER = `security-marker-${crypto.randomUUID().slice(0, 8)}`;
const NO_SUCH_ID = "019aa000-0000-7000-8000-000000000000";

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  provider = startProviderReplay("openai-compatible");
  const base = withUpstream(await testDeps(), upstream);
  // A real provider's wire format (replayed), so the model receives real instructions.
  const env = {
    ...base.env,
    OPENAI_COMPATIBLE_BASE_URL: provider.baseUrl,
    OPENAI_COMPATIBLE_API_KEY: "local-test-key",
    OPENAI_COMPATIBLE_MODELS: "llama3.1:8b context=131072",
  };
  // The offline model stays the default; the replayed one answers when asked for by name.
  const replayed = modelCatalog(env).filter((model) => model.id === "llama3.1:8b");
  expect(replayed).toHaveLength(1);
  deps = { ...base, env, models: [OFFLINE_MODEL, ...replayed.map((model) => ({ ...model, defaultFor: [] }))] };
  workers = await startWorkers(deps, { queues: ["chat", "uploads", "rxnav", "openfda"] });
  app = createApp(deps);
  account = await healthAccount(deps, app);
  web = await webUser(app, deps, { plan: "pro" });
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await upstream?.stop();
  await provider?.stop();
});

// ---------------------------------------------------------------------------------------------
// Every operation: from the OpenAPI document and Elysia's route table.

type OpenApiDoc = { paths: Record<string, Record<string, unknown>> };

/** A concrete path for a route template: ids that exist nowhere, an arXiv-like id for wildcards. */
function concrete(template: string): string {
  return template.replace(/\{\w+\}|:\w+/g, NO_SUCH_ID).replace("*", "2401.00001");
}

async function operations(): Promise<{ method: string; path: string; mediaType?: string }[]> {
  const doc = await json<OpenApiDoc>(await call(app, "/openapi.json"));
  const ops = new Map<string, { method: string; path: string; mediaType?: string }>();
  for (const route of app.routes) {
    if (route.method === "OPTIONS" || route.path === "/*") continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    ops.set(`${route.method} ${path}`, { method: route.method, path });
  }
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = (operation as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content;
      const mediaType = Object.keys(content ?? {})[0];
      ops.set(`${method.toUpperCase()} ${path}`, { method: method.toUpperCase(), path, mediaType });
    }
  }
  return [...ops.values()];
}

/** Public and the same for everyone: the MCP server card (with an ETag), the website's assets. */
const CACHEABLE = /^GET (\/\.well-known\/mcp|\/api\/mcp\/server-card|\/assets\/)/;

/** The security headers of every response (README "## Security"). */
function expectSecurityHeaders(response: Response, what: string) {
  const h = response.headers;
  expect(h.get("x-content-type-options"), what).toBe("nosniff");
  expect(h.get("x-frame-options"), what).toBe("DENY");
  expect(h.get("referrer-policy"), what).toBe("no-referrer");
  expect(h.get("cross-origin-resource-policy"), what).toBe("same-origin");
  const csp = h.get("content-security-policy") ?? "";
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toContain("unsafe-eval");
  // HTML pages (/docs, the website) carry their own policy; everything else loads nothing.
  const html = (h.get("content-type") ?? "").startsWith("text/html");
  expect(csp, what).toMatch(html ? /default-src '(none|self)'/ : /default-src 'none'/);
  expect(h.get("x-request-id"), what).toMatch(/\S{8,}/);
  const type = h.get("content-type") ?? "";
  // JSON and event streams hold account data: never stored. The public discovery cards and static
  // assets are cacheable on purpose.
  if (/json|event-stream/.test(type) && !CACHEABLE.test(what)) {
    expect(h.get("cache-control"), what).toStartWith("no-store");
  }
  if (/json/.test(type)) expect(csp, what).not.toContain("script-src");
}

describe("security headers", () => {
  test("on every operation, with and without a key, and on its CORS preflight", async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(30);
    const statuses = new Set<number>();
    for (const { method, path } of ops) {
      const target = concrete(path);
      const body = ["POST", "PUT", "PATCH"].includes(method) ? { body: {} } : {};
      for (const key of [undefined, account.apiKey]) {
        const response = await call(app, target, { method, ...(key ? { key } : {}), ...body });
        expectSecurityHeaders(response, `${method} ${target} ${key ? "with" : "without"} a key → ${response.status}`);
        statuses.add(response.status);
        await response.arrayBuffer();
      }
      const preflight = await call(app, target, {
        method: "OPTIONS",
        headers: { origin: "https://elsewhere.example", "access-control-request-method": method },
      });
      expect(preflight.status).toBe(204);
      expectSecurityHeaders(preflight, `OPTIONS ${target}`);
    }
    // A method a path lacks (405 with Allow) carries them too.
    for (const [method, target] of [
      ["GET", "/api/mcp"],
      ["DELETE", "/api/mcp"],
      ["PUT", "/api/v1/account"],
    ] as const) {
      const response = await call(app, target, { method, key: account.apiKey });
      expectSecurityHeaders(response, `${method} ${target} → ${response.status}`);
      statuses.add(response.status);
      await response.arrayBuffer();
    }
    // Successes and the error statuses were all among them.
    for (const status of [200, 400, 401, 404, 405]) expect(statuses).toContain(status);
  });

  test("on the docs page (its own CSP for Scalar), MCP, an event stream, 413 and unknown routes", async () => {
    const docs = await call(app, "/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-security-policy")).toContain("script-src https://cdn.jsdelivr.net");
    expect(docs.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(docs.headers.get("x-frame-options")).toBe("DENY");
    // Every script the page loads is allowed by its policy.
    for (const [, src] of (await docs.text()).matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) {
      expect(src).toStartWith("https://cdn.jsdelivr.net/");
    }

    const listed = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      { authorization: `Bearer ${account.apiKey}` },
    );
    expect(listed.status).toBe(200);
    expectSecurityHeaders(listed, "MCP tools/list");

    const stream = await call(app, "/api/v1/health/chat", {
      method: "POST",
      key: account.apiKey,
      body: { message: "symptom options for pregnancy", stream: true },
    });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expectSecurityHeaders(stream, "SSE");
    expect(await stream.text()).toContain("[DONE]");

    const tooLarge = await call(app, "/api/v1/health/trackers", {
      method: "POST",
      key: account.apiKey,
      headers: { "content-type": "application/json" },
      rawBody: "x".repeat(bodyLimitFor(deps.env, "/api/v1/health/trackers") + 1),
    });
    expect(tooLarge.status).toBe(413);
    expectSecurityHeaders(tooLarge, "413");

    for (const path of ["/no/such/route", "/api/v1/no-such-thing", "/.well-known/mcp.json", "/openapi.json"]) {
      expectSecurityHeaders(await call(app, path), `GET ${path}`);
    }
  });

  test("Strict-Transport-Security only when the public URL is HTTPS", async () => {
    expect((await call(app, "/healthz")).headers.get("strict-transport-security")).toBeNull();
    const https = createApp({ ...deps, env: { ...deps.env, PUBLIC_URL: "https://api.example.test" } });
    for (const response of [
      await call(https, "/healthz"),
      await call(https, "/api/v1/account"),
      await call(https, "/api/v1/account", {
        method: "OPTIONS",
        headers: { origin: "https://x.example", "access-control-request-method": "GET" },
      }),
    ]) {
      expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000");
    }
  });
});

// ---------------------------------------------------------------------------------------------

const SIGNED_UPLOAD = /^\/api\/v1\/uploads\/[^/]+\/content$/;

/** The credentials a path takes: a website session on the website's paths, a key on the API's. */
function credentialsFor(path: string): Record<string, string> {
  const policy = policyFor("POST", path) ?? policyFor("PUT", path);
  if (!policy || policy.anonymous) return {};
  if (policy.auth === "session") return { cookie: web.cookie, "x-csrf-token": web.csrfToken };
  return { authorization: `Bearer ${account.apiKey}` };
}

/** A body produced on demand, in 64 KiB chunks, that counts how much of it the server read. */
function countedBody(total: number) {
  const chunk = new Uint8Array(65_536).fill(0x20);
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled >= total) return controller.close();
      const next = chunk.subarray(0, Math.min(chunk.length, total - counter.pulled));
      counter.pulled += next.length;
      controller.enqueue(next);
    },
  });
  return { stream, counter };
}

function send(path: string, method: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>) {
  return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
}

describe("request body limits", () => {
  test("every route that takes a body: over its limit → 413 with the documented body, not read to the end", async () => {
    // Operations that take a body (a route without one refuses any body with 415 before reading it).
    const ops = (await operations()).filter(
      ({ method, mediaType }) => ["POST", "PUT", "PATCH"].includes(method) && mediaType !== undefined,
    );
    expect(ops.length).toBeGreaterThan(10);
    for (const { method, path, mediaType } of ops) {
      const target = concrete(path);
      const limit = bodyLimitFor(deps.env, target);
      const total = limit + 256 * 1024;
      // Declared: refused by its Content-Length before anything is read.
      const declared = countedBody(total);
      const refused = await send(target, method, declared.stream, {
        "content-type": "application/json",
        "content-length": String(total),
      });
      expect(refused.status, `${method} ${target} (declared)`).toBe(413);
      // Refused after CORS has run, so a browser page can read why.
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      expect((await errorOf(refused)).code).toBe("PAYLOAD_TOO_LARGE");
      expect(declared.counter.pulled, `${method} ${target} read a declared oversize body`).toBeLessThan(total);
      // Chunked, no Content-Length, from a caller the path accepts: reading stops one chunk past the limit.
      const chunked = countedBody(total);
      const type = mediaType ?? "application/json";
      const json = {
        "content-type": type.startsWith("multipart/") ? `${type}; boundary=b` : type,
        accept: "application/json, text/event-stream",
      };
      const cut = await send(target, method, chunked.stream, { ...json, ...credentialsFor(target) });
      if (SIGNED_UPLOAD.test(target)) {
        // The signed upload URL's own check (no signature here) refuses it before a byte is read.
        expect(cut.status, `${method} ${target} (chunked, unsigned)`).toBe(400);
        expect(chunked.counter.pulled).toBeLessThanOrEqual(4 * 65_536);
        continue;
      }
      expect(cut.status, `${method} ${target} (chunked)`).toBe(413);
      expect((await errorOf(cut)).code).toBe("PAYLOAD_TOO_LARGE");
      expect(cut.headers.get("connection"), `${method} ${target} (chunked) closes`).toBe("close");
      expect(chunked.counter.pulled, `${method} ${target} read a chunked oversize body`).toBeLessThan(total);
      // The same without credentials where the path needs them: refused before a byte is read.
      if (Object.keys(credentialsFor(target)).length === 0) continue;
      const anonymous = countedBody(total);
      const refused401 = await send(target, method, anonymous.stream, json);
      expect(refused401.status, `${method} ${target} (chunked, no credentials)`).toBe(401);
      expect(anonymous.counter.pulled, `${method} ${target} read an anonymous body`).toBeLessThanOrEqual(4 * 65_536);
    }
  });

  test("a chunked body within the limit still reaches the route", async () => {
    const body = new TextEncoder().encode(JSON.stringify({ title: "Chunked", kind: "acute" }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(body.subarray(0, 5));
        controller.enqueue(body.subarray(5));
        controller.close();
      },
    });
    const created = await send("/api/v1/health/trackers", "POST", stream, {
      "content-type": "application/json",
      authorization: `Bearer ${account.apiKey}`,
    });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ title: "Chunked" });
  });

  test("over a real socket: chunked oversize → 413; a Content-Length that lies short is cut there by Bun", async () => {
    const server = app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const base = `http://127.0.0.1:${server.server?.port}`;
      const { stream, counter } = countedBody(4 * 1_048_576);
      const response = await fetch(`${base}/api/v1/health/trackers`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${account.apiKey}` },
        body: stream,
      });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).code).toBe("PAYLOAD_TOO_LARGE");
      expect(counter.pulled).toBeLessThan(4 * 1_048_576);

      // 2 MiB sent after a Content-Length of 40: the route gets those 40 bytes; Bun reads the rest as
      // the next request, refuses it and closes the connection. The server goes on serving.
      const body40 = '{"title": "Lying", "kind": "acute"}     ';
      const answer = await rawRequest(
        server.server?.port as number,
        `POST /api/v1/health/trackers HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${account.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${body40.length}\r\n\r\n${body40}${"y".repeat(2 * 1_048_576)}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 (201|4\d\d) /);
      expect(answer).not.toMatch(/HTTP\/1\.1 5\d\d/);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const list = await json<{ trackers: { title: string }[] }>(
        await call(app, "/api/v1/health/trackers?limit=100", { key: account.apiKey }),
      );
      expect(list.trackers.filter((t) => t.title.startsWith("Lying")).map((t) => t.title)).toEqual(
        list.trackers.some((t) => t.title.startsWith("Lying")) ? ["Lying"] : [],
      );
    } finally {
      await server.stop(true);
    }
  });
});

/** Writes raw bytes to the server and returns what it answers first. */
async function rawRequest(port: number, text: string): Promise<string> {
  let received = "";
  const { promise, resolve } = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        received += new TextDecoder().decode(data);
      },
      close() {
        resolve(received);
      },
      error() {
        resolve(received);
      },
    },
  });
  socket.write(text);
  const answer = await promise;
  socket.end();
  return answer;
}

// ---------------------------------------------------------------------------------------------

type Shared = {
  title: string;
  messages: { role: string; parts: { type: string; text?: string }[]; metadata?: unknown }[];
};

async function shareOf(key: string, chatId: string): Promise<Shared> {
  const share = await json<{ token: string }>(
    await call(app, `/api/v1/chats/${chatId}/share`, { method: "POST", key }),
  );
  const response = await call(app, `/api/v1/shared/${share.token}`);
  expect(response.status).toBe(200);
  expectSecurityHeaders(response, "GET /api/v1/shared/{token}");
  return json<Shared>(response);
}

const ask = async (key: string, message: string, extra: Record<string, unknown> = {}) => {
  const response = await call(app, "/api/v1/health/chat", { method: "POST", key, body: { message, ...extra } });
  expect(response.status).toBe(200);
  return json<ChatReply>(response);
};

describe("share links expose no profile data", () => {
  test("replies that read the profile or logs, or had the profile in their instructions, are withheld", async () => {
    const owner = await healthAccount(deps, app, { consent: false });
    const key = owner.apiKey;
    await call(app, "/api/v1/health/profile", {
      method: "POST",
      key,
      body: { consentGiven: true, conditions: [`${MARKER} asthma`], medications: [`${MARKER} inhaler`] },
    });
    const tracker = await createTracker(app, key, `${MARKER} flu`);
    expect((await addEntry(app, key, tracker.id, { severity: 4, note: `${MARKER} note` })).status).toBe(201);

    // The offline model: the profile tool, the logs tool, then a reference question, in one chat.
    const first = await ask(key, "what is in my profile?");
    expect(first.text).toContain(MARKER);
    const logs = await ask(key, "show my health logs", { chat_id: first.chat_id });
    expect(logs.text).toContain(MARKER);
    await ask(key, "symptom options for pregnancy", { chat_id: first.chat_id });
    // A real provider's wire format: the model receives the profile in its instructions.
    const sent = provider.requests.length;
    const replayed = await ask(key, "aspirin label", { model: "llama3.1:8b" });
    expect(JSON.stringify(provider.requests.slice(sent).map((r) => r.body))).toContain(MARKER);

    for (const chatId of [first.chat_id, replayed.chat_id]) {
      const own = JSON.stringify(await json(await call(app, `/api/v1/health/chat/${chatId}`, { key })));
      const shared = await shareOf(key, chatId);
      const text = JSON.stringify(shared);
      if (chatId === first.chat_id) expect(own).toContain(MARKER);
      expect(text).not.toContain(MARKER);
      expect(text).not.toContain("metadata");
      expect(text).not.toMatch(/get_health_profile|list_health_logs|summarize_health_log/);
      for (const message of shared.messages.filter((m) => m.role === "assistant")) {
        expect(message.parts).toEqual([{ type: "text", text: expect.stringContaining("Withheld") }]);
      }
      // The person's own questions stay readable.
      expect(shared.messages.filter((m) => m.role === "user").length).toBeGreaterThan(0);
    }
  });

  test("without a profile, replies are shared as written", async () => {
    const owner = await healthAccount(deps, app, { consent: false });
    const reply = await ask(owner.apiKey, "symptom options for pregnancy");
    const shared = await shareOf(owner.apiKey, reply.chat_id);
    expect(JSON.stringify(shared.messages.at(-1)?.parts)).toContain("symptom options");
  });
});

// ---------------------------------------------------------------------------------------------

const textTicket = async (key: string, size: number) =>
  json<Presigned>(await presign(app, key, { filename: "n.txt", contentType: "text/plain", size }));

describe("signed upload URLs cannot be replayed or retargeted", () => {
  // uploads.test.ts covers: a second PUT (409), a tampered signature, a lapsed or extended expiry,
  // another Content-Type (403), a longer or shorter body (413, 400). These add the rest.
  test("one upload's signature on another upload's path (same account or not) → 403; both stay pending", async () => {
    const x = await textTicket(account.apiKey, 5);
    const y = await textTicket(account.apiKey, 5);
    const other = await healthAccount(deps, app);
    const z = await textTicket(other.apiKey, 5);
    for (const target of [y.fileId, z.fileId]) {
      const response = await put(app, x.uploadUrl.replace(x.fileId, target), new Uint8Array(5), "text/plain");
      expect(response.status).toBe(403);
      await errorOf(response);
    }
    for (const [key, fileId] of [
      [account.apiKey, x.fileId],
      [account.apiKey, y.fileId],
      [other.apiKey, z.fileId],
    ] as const) {
      expect(await json(await call(app, `/api/v1/uploads/${fileId}`, { key }))).toMatchObject({ status: "pending" });
    }
  });

  test("a replay after complete and processing → 409, and the processed bytes stay the first ones", async () => {
    const first = new TextEncoder().encode("first");
    const ticket = await textTicket(account.apiKey, first.length);
    expect((await put(app, ticket.uploadUrl, first, "text/plain")).status).toBe(200);
    await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: account.apiKey,
      body: { fileId: ticket.fileId },
    });
    let info = await json<{ status: string; sha256: string }>(
      await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: account.apiKey }),
    );
    while (info.status === "processing") {
      await Bun.sleep(20);
      info = await json(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: account.apiKey }));
    }
    expect(info.status).toBe("ready");
    const replay = await put(app, ticket.uploadUrl, new TextEncoder().encode("other"), "text/plain");
    expect(replay.status).toBe(409);
    expect(await deps.uploads.storage.read(uploadKey(account.accountId, ticket.fileId))).toEqual(first);
  });

  test("two PUTs racing on one URL: one stores its bytes, the other is refused and stores nothing", async () => {
    for (let round = 0; round < 5; round++) {
      const ticket = await textTicket(account.apiKey, 5);
      const bodies = ["aaaaa", "bbbbb"].map((text) => new TextEncoder().encode(text));
      const answers = await Promise.all(bodies.map((bytes) => put(app, ticket.uploadUrl, bytes, "text/plain")));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 409]);
      const winner = bodies[answers.findIndex((answer) => answer.status === 200)];
      expect(await deps.uploads.storage.read(uploadKey(account.accountId, ticket.fileId))).toEqual(
        winner as Uint8Array,
      );
    }
  });
});
