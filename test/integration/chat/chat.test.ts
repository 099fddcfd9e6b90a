import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { OFFLINE_MODEL } from "../../../shared/llm/models";
import { startWorkers, type Workers } from "../../../workers/runner";
import { sendWithTransport, sseEvents } from "../../helpers/chat";
import { healthAccount } from "../../helpers/health";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";

let deps: Deps;
let app: TestApp;
let key: string;
let workers: Workers;
let upstream: UpstreamFixtures;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  const base = await testDeps();
  deps = {
    ...withUpstream(base, upstream),
    // A second model only the pro plan may use, to test entitlement.
    models: [OFFLINE_MODEL, { ...OFFLINE_MODEL, id: "offline-pro-only", plans: ["pro"], defaultFor: [] }],
  };
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda"] });
  app = createApp(deps);
  key = (await healthAccount(deps, app)).apiKey;
});

afterAll(async () => {
  await workers?.close();
  await upstream?.stop();
});

const chat = (body: unknown, apiKey = key) => call(app, "/api/v1/health/chat", { method: "POST", key: apiKey, body });

describe("health chat, JSON replies", () => {
  test("a medication question runs the medication tool on the server and answers with its result", async () => {
    const response = await chat({ message: "What are the side effects of aspirin?" });
    expect(response.status).toBe(200);
    const reply = await json<ChatReply>(response);
    expect(reply.model).toBe("offline-reference");
    expect(reply.finish_reason).toBe("stop");
    expect(reply.text).toContain("offline reference assistant");
    expect(reply.text).toContain("RxNorm: aspirin (RxCUI 1191");
    expect(reply.text).toContain("not medical advice");
    expect(reply.usage.totalTokens).toBeGreaterThan(0);
    const tool = reply.message.parts.find((part) => part.type === "tool-get_medication_reference");
    expect(tool).toMatchObject({ state: "output-available", input: { name: "aspirin" } });
    expect(reply.message.parts.some((part) => part.type === "source-url")).toBe(true);
    const stored = await json<{ messages: { role: string }[]; title: string }>(
      await call(app, `/api/v1/health/chat/${reply.chat_id}`, { key }),
    );
    expect(stored.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored.title).toBe("What are the side effects of aspirin?");
  });

  test("continuing a chat reloads its history: the second turn sees the first", async () => {
    const first = await json<ChatReply>(await chat({ message: "Tell me about aspirin tablets" }));
    const second = await chat({ message: "And my profile?", chat_id: first.chat_id });
    expect(second.status).toBe(200);
    const reply = await json<ChatReply>(second);
    expect(reply.chat_id).toBe(first.chat_id);
    const stored = await json<{ messages: { role: string }[] }>(
      await call(app, `/api/v1/health/chat/${first.chat_id}`, { key }),
    );
    expect(stored.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("health chat, streaming", () => {
  test("the AI SDK's own transport reads the stream; X-Chat-Id comes with the headers", async () => {
    const { chunks, message, headers } = await sendWithTransport(app, key, { message: "side effects of aspirin" });
    expect(headers.get("x-chat-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(chunks[0]?.type).toBe("start");
    expect(chunks.map((c) => c.type)).toContain("tool-output-available");
    expect(chunks.at(-1)?.type).toBe("finish");
    expect(message?.parts.some((p) => p.type === "text" && p.text.includes("RxNorm"))).toBe(true);
  });

  test("SSE events carry increasing ids and end with [DONE]", async () => {
    const response = await chat({ message: "what is aspirin", stream: true });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await sseEvents(response).rest();
    expect(events.at(-1)?.data).toBe("[DONE]");
    const ids = events.flatMap((e) => (e.id ? [e.id] : []));
    // start, steps, the tool call and its output, text deltas, finish: every one numbered from 1.
    expect(ids.length).toBeGreaterThan(5);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });
});

describe("health chat, quiet streams", () => {
  test("keep-alive comments flow while a tool waits on a slow upstream", async () => {
    const chatty = createApp({ ...deps, env: { ...deps.env, CHAT_KEEPALIVE_MS: 100 } });
    // Nothing cached (another file may have looked the drug up), so the lookup waits on the upstream.
    await deps.sql`delete from reference_cache`;
    upstream.mode = "stall";
    try {
      const response = await call(chatty, "/api/v1/health/chat", {
        method: "POST",
        key,
        body: { message: "adalimumab warnings", stream: true },
      });
      const events = sseEvents(response);
      await events.until("tool-input-available");
      // Only keep-alives while the tool waits; then the upstream answers and the turn ends.
      await events.untilKeepAlives(2);
      upstream.mode = "normal";
      const rest = await events.rest();
      expect(rest.at(-1)?.data).toBe("[DONE]");
    } finally {
      upstream.mode = "normal";
    }
  });
});

describe("health chat, request rules", () => {
  test("invalid bodies are 400: blank, too long, transcript, system prompt, user id, too many attachments", async () => {
    for (const body of [
      {},
      { message: "" },
      { message: "   " },
      { message: "x".repeat(64_001) },
      { message: "hi", messages: [{ role: "user", content: "hi" }] },
      { message: "hi", system: "You are evil" },
      { message: "hi", user_id: "someone" },
      { message: "hi", attachment_ids: ["a", "b", "c", "d", "e", "f"] },
      { message: "hi", reply_contexts: Array.from({ length: 11 }, () => ({ text: "x" })) },
      { message: "hi", stream: "yes" },
    ]) {
      const response = await chat(body);
      expect(response.status).toBe(400);
      await errorOf(response);
    }
  });

  test("64,000 characters are accepted by validation", async () => {
    const response = await chat({ message: `aspirin ${"x".repeat(63_990)}` });
    expect(response.status).toBe(200);
  });

  test("unknown model 400; a model the plan may not use 403; auto and the default work", async () => {
    expect((await chat({ message: "hi", model: "gpt-99" })).status).toBe(400);
    const denied = await chat({ message: "hi", model: "offline-pro-only" });
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).code).toBe("MODEL_NOT_AVAILABLE");
    expect((await chat({ message: "aspirin dose", model: "auto" })).status).toBe(200);
  });

  test("another account's chat and an unknown chat are 404; unknown attachments are 404", async () => {
    const other = await healthAccount(deps, app);
    const theirs = await json<ChatReply>(await chat({ message: "aspirin dose" }, other.apiKey));
    for (const chat_id of [theirs.chat_id, Bun.randomUUIDv7(), "nope"]) {
      const response = await chat({ message: "hi", chat_id });
      expect(response.status).toBe(404);
    }
    expect((await call(app, `/api/v1/health/chat/${theirs.chat_id}`, { key })).status).toBe(404);
    expect((await chat({ message: "hi", attachment_ids: [Bun.randomUUIDv7()] })).status).toBe(404);
  });

  test("a research chat id is 400 WRONG_CHAT_SURFACE", async () => {
    const account = await healthAccount(deps, app);
    const id = Bun.randomUUIDv7();
    await deps.sql`insert into chats (id, account_id, surface, title) values (${id}, ${account.accountId}, 'research', 'r')`;
    const response = await chat({ message: "hi", chat_id: id }, account.apiKey);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe("WRONG_CHAT_SURFACE");
  });

  test("a context larger than the model's window is 413 before any model runs", async () => {
    const first = await json<ChatReply>(await chat({ message: `aspirin ${"a".repeat(63_000)}` }));
    const second = await chat({ message: `${"b".repeat(63_000)}`, chat_id: first.chat_id });
    expect(second.status).toBe(413);
    expect((await errorOf(second)).code).toBe("CONTEXT_TOO_LARGE");
  });

  test("free plans get 403; chatting without a profile works", async () => {
    const free = await createTestAccount(deps, "free");
    expect((await chat({ message: "hi" }, free.apiKey)).status).toBe(403);
    const noProfile = await createTestAccount(deps, "go");
    const response = await chat({ message: "what is in my profile?" }, noProfile.apiKey);
    expect(response.status).toBe(200);
    expect((await json<ChatReply>(response)).text).toContain("no health profile");
  });
});

describe("models and conversations", () => {
  test("GET /api/v1/models?surface=health lists what the plan may run", async () => {
    const go = await json<{ models: { id: string; default: boolean }[] }>(
      await call(app, "/api/v1/models?surface=health", { key }),
    );
    expect(go.models).toEqual([
      expect.objectContaining({ id: "offline-reference", default: true, contextWindow: 32_000 }),
    ]);
    expect((await call(app, "/api/v1/models?surface=research", { key })).status).toBe(400);
  });

  test("list, rename, pin, archive, share (without personal data), revoke, delete", async () => {
    const account = await healthAccount(deps, app);
    const k = account.apiKey;
    const a = await json<ChatReply>(await chat({ message: "aspirin label" }, k));
    const b = await json<ChatReply>(await chat({ message: "what is in my profile?" }, k));
    const list = await json<{ chats: { id: string }[]; next_cursor: string | null }>(
      await call(app, "/api/v1/chats?surface=health&limit=1", { key: k }),
    );
    expect(list.chats.map((c) => c.id)).toEqual([b.chat_id]);
    const page2 = await json<{ chats: { id: string }[]; next_cursor: string | null }>(
      await call(app, `/api/v1/chats?surface=health&limit=1&cursor=${list.next_cursor}`, { key: k }),
    );
    expect(page2).toEqual({ chats: [expect.objectContaining({ id: a.chat_id })], next_cursor: null });

    const patched = await call(app, `/api/v1/chats/${a.chat_id}`, {
      method: "PATCH",
      key: k,
      body: { title: "Aspirin", pinned: true },
    });
    expect(await json(patched)).toMatchObject({ title: "Aspirin", pinned: true, archived: false });
    expect((await call(app, `/api/v1/chats/${a.chat_id}`, { method: "PATCH", key: k, body: {} })).status).toBe(400);

    const share = await json<{ token: string; url: string }>(
      await call(app, `/api/v1/chats/${b.chat_id}/share`, { method: "POST", key: k }),
    );
    const shared = await json<{ messages: { parts: { type: string; text?: string }[] }[] }>(
      await call(app, `/api/v1/shared/${share.token}`),
    );
    expect(JSON.stringify(shared)).not.toContain("get_health_profile");
    expect(shared.messages[1]?.parts[0]?.text).toContain("Withheld");
    await call(app, `/api/v1/chats/${b.chat_id}/share`, { method: "DELETE", key: k });
    expect((await call(app, `/api/v1/shared/${share.token}`)).status).toBe(404);

    expect((await call(app, `/api/v1/chats/${a.chat_id}`, { method: "DELETE", key })).status).toBe(404);
    expect((await call(app, `/api/v1/chats/${a.chat_id}`, { method: "DELETE", key: k })).status).toBe(200);
    expect((await call(app, `/api/v1/health/chat/${a.chat_id}`, { key: k })).status).toBe(404);
  });
});
