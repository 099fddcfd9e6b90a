import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { PLANS } from "../../../shared/core/plans";
import { startWorkers, type Workers } from "../../../workers/runner";
import { sseEvents } from "../../helpers/chat";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";
import { type WebUser, webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;
let workers: Workers;
let upstream: UpstreamFixtures;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = withUpstream(await testDeps(), upstream);
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda"] });
  app = createApp(deps);
});

afterAll(async () => {
  await workers?.close();
  await upstream?.stop();
});

async function consentingUser(): Promise<WebUser> {
  const user = await webUser(app, deps, { plan: "go" });
  const saved = await webCall(app, user, "/api/health/profile", {
    method: "POST",
    body: { consentGiven: true, conditions: ["Asthma"], medications: [] },
  });
  expect(saved.status).toBe(200);
  return user;
}

async function usage(user: WebUser) {
  const response = await webCall(app, user, "/api/dashboard/usage");
  expect(response.status).toBe(200);
  return json<{ plan: string; limit: number; used: number; remaining: number; resetsAt: string | null }>(response);
}

async function newKey(user: WebUser) {
  const response = await webCall(app, user, "/api/dashboard/keys", { method: "POST" });
  expect(response.status).toBe(201);
  return json<{ id: string; key: string; prefix: string; createdAt: string }>(response);
}

describe("plan, validation and CSRF, as on v1", () => {
  test("a free account gets 403 PLAN_REQUIRED on every website health path, known or not", async () => {
    const user = await webUser(app, deps);
    for (const path of ["/api/health/profile", "/api/health/trackers", "/api/health/nowhere", "/api/uploads/x"]) {
      const response = await webCall(app, user, path);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
    }
    const chat = await webCall(app, user, "/api/health/chat", { method: "POST", body: { message: "hi" } });
    expect(chat.status).toBe(403);
    // Not health: the conversation list and models work on free, as on v1.
    expect((await webCall(app, user, "/api/chats?surface=health")).status).toBe(200);
    expect((await webCall(app, user, "/api/models?surface=health")).status).toBe(200);
  });

  test("the same validation (400 with details) and consent rules as v1", async () => {
    const user = await webUser(app, deps, { plan: "go" });
    const noConsent = await webCall(app, user, "/api/health/trackers", {
      method: "POST",
      body: { title: "Flu", kind: "acute" },
    });
    expect(noConsent.status).toBe(403);
    expect((await errorOf(noConsent)).code).toBe("CONSENT_REQUIRED");
    const invalid = await webCall(app, user, "/api/health/profile", { method: "POST", body: { consentGiven: false } });
    expect(invalid.status).toBe(400);
    const error = await errorOf(invalid);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "/consentGiven" })]));
    const badQuery = await webCall(app, user, "/api/health/trackers?limit=0");
    expect(badQuery.status).toBe(400);
  });

  test("state changes need the CSRF token; reads do not", async () => {
    const user = await consentingUser();
    for (const csrf of [null, "wrong"]) {
      const response = await webCall(app, user, "/api/health/trackers", {
        method: "POST",
        body: { title: "Flu", kind: "acute" },
        csrf,
      });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("CSRF_FAILED");
    }
    const listed = await json<{ trackers: unknown[] }>(
      await webCall(app, user, "/api/health/trackers", { csrf: null }),
    );
    expect(listed.trackers).toEqual([]);
  });
});

describe("the website and the API see the same account", () => {
  test("a log made on the website is read with the account's key on v1, and its summary on both", async () => {
    const user = await consentingUser();
    const created = await webCall(app, user, "/api/health/trackers", {
      method: "POST",
      body: { title: "Flu, November", kind: "acute" },
    });
    expect(created.status).toBe(201);
    const tracker = await json<{ id: string }>(created);
    const entry = await webCall(app, user, `/api/health/trackers/${tracker.id}/entries`, {
      method: "POST",
      body: { severity: 6, symptoms: ["fever"], temperature: 38.4, temperatureUnit: "C" },
    });
    expect(entry.status).toBe(201);
    const { key } = await newKey(user);
    const viaKey = await call(app, `/api/v1/health/trackers/${tracker.id}`, { key });
    expect(viaKey.status).toBe(200);
    expect((await json<{ entryCount: number }>(viaKey)).entryCount).toBe(1);
    const summaryWeb = await json(await webCall(app, user, `/api/health/trackers/${tracker.id}/summary`));
    const summaryV1 = await json(await call(app, `/api/v1/health/trackers/${tracker.id}/summary`, { key }));
    expect(summaryWeb).toEqual(summaryV1);
    // Another website user cannot see it.
    const other = await consentingUser();
    expect((await webCall(app, other, `/api/health/trackers/${tracker.id}`)).status).toBe(404);
  });

  test("presign on the website returns the same signed v1 upload URL", async () => {
    const user = await consentingUser();
    const response = await webCall(app, user, "/api/uploads/presign", {
      method: "POST",
      body: { scope: "health", filename: "labs.txt", contentType: "text/plain", size: 12 },
    });
    expect(response.status).toBe(201);
    const presigned = await json<{ fileId: string; uploadUrl: string }>(response);
    expect(new URL(presigned.uploadUrl).pathname).toBe(`/api/v1/uploads/${presigned.fileId}/content`);
    const status = await json<{ status: string }>(await webCall(app, user, `/api/uploads/${presigned.fileId}`));
    expect(status.status).toBe("pending");
  });

  test("transcription is mounted behind the session with v1's form rules", async () => {
    const user = await consentingUser();
    const form = new FormData();
    form.set("provider", "elevenlabs");
    const response = await app.handle(
      new Request("http://localhost/api/transcribe", {
        method: "POST",
        headers: { cookie: user.cookie, "x-csrf-token": user.csrfToken },
        body: form,
      }),
    );
    expect(response.status).toBe(400);
    expect(JSON.stringify((await errorOf(response)).details)).toContain("audio");
  });
});

describe("website chat", () => {
  test("streams the v1 protocol from POST /api/health/chat; the conversation is listed and stored", async () => {
    const user = await consentingUser();
    const response = await webCall(app, user, "/api/health/chat", {
      method: "POST",
      body: { message: "What are the side effects of aspirin?", stream: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const chatId = response.headers.get("x-chat-id") as string;
    expect(chatId).toMatch(/^[0-9a-f-]{36}$/);
    const events = await sseEvents(response).rest();
    expect(events.at(-1)?.data).toBe("[DONE]");
    const types = events.slice(0, -1).map((event) => (JSON.parse(event.data) as { type: string }).type);
    expect(types[0]).toBe("start");
    expect(types).toContain("text-delta");
    expect(types).toContain("tool-output-available");
    expect(types.at(-1)).toBe("finish");
    const list = await json<{ chats: { id: string }[] }>(await webCall(app, user, "/api/chats?surface=health"));
    expect(list.chats.map((chat) => chat.id)).toContain(chatId);
    const stored = await json<{ messages: { role: string }[] }>(await webCall(app, user, `/api/health/chat/${chatId}`));
    expect(stored.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect((await webCall(app, user, `/api/health/chat/${chatId}/stream`)).status).toBe(204);
  });
});

describe("dashboard", () => {
  test("usage counts website and API-key requests in one window; reading it spends nothing", async () => {
    const user = await consentingUser();
    const start = await usage(user);
    expect(start).toMatchObject({ plan: "go", limit: PLANS.go.requestsPerHour });
    expect(start.used).toBeGreaterThanOrEqual(1); // the consent save
    expect(start.remaining).toBe(start.limit - start.used);
    expect(start.resetsAt).not.toBeNull();
    // Dashboard reads, key management and the session endpoint are free.
    const { key } = await newKey(user);
    await webCall(app, user, "/api/dashboard/keys");
    await webCall(app, user, "/api/auth/session");
    expect((await usage(user)).used).toBe(start.used);
    const mirrored = await webCall(app, user, "/api/health/profile");
    expect(mirrored.headers.get("ratelimit-limit")).toBe(String(PLANS.go.requestsPerHour));
    expect(Number(mirrored.headers.get("ratelimit-remaining"))).toBe(start.remaining - 1);
    // One key request (a busy key leases slots ahead, which count until handed back).
    expect((await call(app, "/api/v1/account", { key })).status).toBe(200);
    expect((await usage(user)).used).toBe(start.used + 2);
  });

  test("a fresh account has nothing counted and no reset time", async () => {
    const user = await webUser(app, deps);
    expect(await usage(user)).toEqual({
      plan: "free",
      limit: PLANS.free.requestsPerHour,
      used: 0,
      remaining: PLANS.free.requestsPerHour,
      resetsAt: null,
    });
  });

  test("the hourly limit binds the website too: 429 on the mirrors, the dashboard still answers", async () => {
    const tight = createApp({ ...deps, plans: { ...PLANS, go: { ...PLANS.go, requestsPerHour: 3 } } });
    const user = await webUser(tight, deps, { plan: "go" });
    for (let i = 0; i < 3; i++) expect((await webCall(tight, user, "/api/health/profile")).status).toBe(200);
    const denied = await webCall(tight, user, "/api/health/profile");
    expect(denied.status).toBe(429);
    expect(denied.headers.get("retry-after")).not.toBeNull();
    const shown = await json<{ used: number; remaining: number }>(await webCall(tight, user, "/api/dashboard/usage"));
    expect(shown).toMatchObject({ used: 3, remaining: 0 });
  });

  test("keys: created once in full, listed by prefix, revoked at once; another account's key is 404", async () => {
    const user = await webUser(app, deps);
    const created = await newKey(user);
    expect(created.key).toMatch(/^phk_/);
    expect(created.key.startsWith(created.prefix.replace("…", ""))).toBe(true);
    expect((await call(app, "/api/v1/account", { key: created.key })).status).toBe(200);
    const listing = await webCall(app, user, "/api/dashboard/keys");
    const text = await listing.text();
    expect(text).not.toContain(created.key);
    const { keys } = JSON.parse(text) as { keys: Record<string, unknown>[] };
    expect(keys).toEqual([
      { id: created.id, prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: null, revokedAt: null },
    ]);

    const stranger = await webUser(app, deps);
    const theirs = await webCall(app, stranger, `/api/dashboard/keys/${created.id}`, { method: "DELETE" });
    expect(theirs.status).toBe(404);
    expect((await call(app, "/api/v1/account", { key: created.key })).status).toBe(200);
    for (const id of ["not-a-uuid", crypto.randomUUID()]) {
      expect((await webCall(app, user, `/api/dashboard/keys/${id}`, { method: "DELETE" })).status).toBe(404);
    }
    const noCsrf = await webCall(app, user, `/api/dashboard/keys/${created.id}`, { method: "DELETE", csrf: null });
    expect(noCsrf.status).toBe(403);

    const revoked = await webCall(app, user, `/api/dashboard/keys/${created.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ id: created.id, revoked: true });
    const refused = await call(app, "/api/v1/account", { key: created.key });
    expect(refused.status).toBe(401);
    const after = await json<{ keys: { revokedAt: string | null }[] }>(await webCall(app, user, "/api/dashboard/keys"));
    expect(after.keys[0]?.revokedAt).not.toBeNull();
  });

  test("an admin-made key of another account cannot be revoked from the website either", async () => {
    const account = await createTestAccount(deps, "go");
    const user = await webUser(app, deps);
    expect((await webCall(app, user, `/api/dashboard/keys/${account.keyId}`, { method: "DELETE" })).status).toBe(404);
    expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
  });

  test("the MCP snippet points at this server's /api/mcp with a key placeholder", async () => {
    const user = await webUser(app, deps);
    const body = await json<{ url: string; config: { mcpServers: Record<string, unknown> } }>(
      await webCall(app, user, "/api/dashboard/mcp"),
    );
    expect(body.url).toBe("http://localhost/api/mcp");
    expect(body.config.mcpServers["papers-health"]).toEqual({
      type: "http",
      url: "http://localhost/api/mcp",
      headers: { Authorization: "Bearer <YOUR_API_KEY>" },
    });
  });
});

describe("OpenAPI", () => {
  test("website paths are documented under the Website tag with the session scheme; the share reader is v1-only", async () => {
    const doc = (await (await call(app, "/openapi.json")).json()) as {
      paths: Record<string, Record<string, { tags?: string[]; security?: Record<string, string[]>[] }>>;
      components: { securitySchemes: Record<string, { in?: string; name?: string }> };
    };
    expect(doc.components.securitySchemes.session).toMatchObject({ in: "cookie", name: "sid" });
    for (const [path, method] of [
      ["/api/health/chat", "post"],
      ["/api/health/trackers/{trackerId}/entries", "post"],
      ["/api/chats", "get"],
      ["/api/uploads/presign", "post"],
      ["/api/transcribe", "post"],
      ["/api/dashboard/keys", "post"],
      ["/api/auth/session", "get"],
    ] as const) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.tags).toEqual(["Website"]);
      expect(operation?.security).toEqual([{ session: [] }]);
    }
    expect(doc.paths["/api/v1/health/chat"]?.post?.tags).toEqual(["Health chat"]);
    expect(doc.paths["/api/v1/health/chat"]?.post?.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.paths["/api/shared/{token}"]).toBeUndefined();
    expect(doc.paths["/api/uploads/{fileId}/content"]).toBeUndefined();
    expect(doc.paths["/api/v1/uploads/{fileId}/content"]).toBeDefined();
  });
});
