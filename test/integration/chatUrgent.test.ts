import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { UIMessageChunk } from "ai";
import { createApp } from "../../api/app";
import { noticeTracker } from "../../shared/chat/turn/urgent";
import { closeDeps, createDeps, type Deps } from "../../shared/context/deps";
import type { ChatReply } from "../../shared/conversations/schemas";
import type { Env } from "../../shared/core/env";
import { addEntry, createLog } from "../../shared/health/logs";
import { startWorkers, type Workers } from "../../workers/runner";
import { openaiReplayEnv, type ProviderReplay, startProviderReplay } from "../fixtures/providers/replayServer";
import bank from "../fixtures/safety/red-flags.json";
import { sendWithTransport } from "../helpers/chat";
import { healthAccount } from "../helpers/health";
import { call, json, type TestApp } from "../helpers/http";
import { testDeps, testLog } from "../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, upstreamEnv } from "../helpers/upstream";

/**
 * The red-flag check through the whole chat path, with the offline model and with a provider
 * replaying OpenAI's wire format: the notice comes first in the stream, the JSON reply, the stored
 * message and the MCP result, and the model's answer still follows it.
 */
let deps: Deps;
let app: TestApp;
let providerApp: TestApp;
const workers: Workers[] = [];
let upstream: UpstreamFixtures;
let openai: ProviderReplay;
let providerDeps: Deps;
let offlineKey: string;
let providerKey: string;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  openai = startProviderReplay("openai");
  const base = await testDeps();
  deps = { ...base, env: { ...base.env, ...upstreamEnv(upstream) } };
  // The provider's world has its own queues (another Redis prefix): its workers know only its model.
  const env: Env = { ...deps.env, ...openaiReplayEnv(openai), REDIS_PREFIX: `${base.env.REDIS_PREFIX}p` };
  providerDeps = createDeps(env, { log: testLog });
  for (const world of [deps, providerDeps])
    workers.push(await startWorkers(world, { queues: ["chat", "rxnav", "openfda"] }));
  app = createApp(deps);
  providerApp = createApp(providerDeps);
  offlineKey = (await healthAccount(deps, app)).apiKey;
  providerKey = (await healthAccount(providerDeps, providerApp)).apiKey;
});

afterAll(async () => {
  for (const running of workers) await running.close();
  if (providerDeps) await closeDeps(providerDeps);
  await upstream?.stop();
  await openai?.stop();
});

const MENINGITIS = "I have had a fever of 39.5 and a stiff neck since this morning, what should I do?";
const ask = async (key: string, message: string) => {
  const response = await call(app, "/api/v1/health/chat", { method: "POST", key, body: { message } });
  expect(response.status).toBe(200);
  return json<ChatReply>(response);
};
const firstTextIndex = (chunks: UIMessageChunk[]) => chunks.findIndex((chunk) => chunk.type.startsWith("text-"));

describe("the urgent notice with the offline model", () => {
  test("streamed: a data-urgent part before any text, then the advice, then the answer", async () => {
    const { chunks, message } = await sendWithTransport(app, offlineKey, { message: MENINGITIS });
    const urgent = chunks.findIndex((chunk) => chunk.type === "data-urgent");
    expect(urgent).toBeGreaterThan(-1);
    expect(urgent).toBeLessThan(firstTextIndex(chunks));
    const parts = message?.parts ?? [];
    expect(parts[0]).toMatchObject({
      type: "data-urgent",
      data: { source: "message", signs: [{ category: "meningitis" }] },
    });
    expect(parts[1]).toMatchObject({ type: "text", text: expect.stringMatching(/^Please seek urgent care\./) });
    // The assistant's own answer still follows.
    expect(parts.filter((part) => part.type === "text").length).toBeGreaterThan(1);
  });

  test("JSON reply, stored message and MCP health_chat carry it; a plain question carries none", async () => {
    const reply = await ask(offlineKey, MENINGITIS);
    expect(reply.urgent?.signs.map((sign) => sign.category)).toEqual(["meningitis"]);
    expect(reply.text.startsWith(reply.urgent?.advice ?? "-")).toBe(true);
    const stored = await json<{ messages: { parts: { type: string }[] }[] }>(
      await call(app, `/api/v1/health/chat/${reply.chat_id}`, { key: offlineKey }),
    );
    expect(stored.messages.at(-1)?.parts[0]?.type).toBe("data-urgent");
    const plain = await ask(offlineKey, "What are the side effects of aspirin?");
    expect(plain.urgent).toBeNull();
    expect(plain.message.parts.some((part) => part.type === "data-urgent")).toBe(false);
    const mcp = await call(app, "/api/mcp", {
      method: "POST",
      key: offlineKey,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "health_chat", arguments: { message: "I want to kill myself" } },
      },
    });
    const result = (await json<{ result: { structuredContent: ChatReply; content: { text: string }[] } }>(mcp)).result;
    expect(result.structuredContent.urgent?.signs.map((sign) => sign.category)).toEqual(["self_harm"]);
    expect(result.content[0]?.text).toStartWith("URGENT: Thoughts of suicide or self-harm.");
    expect(result.structuredContent.text).toContain("988");
  });

  test("the whole red-flag bank through the API: each message's notice has exactly its categories", async () => {
    const wrong: string[] = [];
    for (let i = 0; i < bank.messages.length; i += 8) {
      await Promise.all(
        bank.messages.slice(i, i + 8).map(async ({ message, categories }) => {
          const got = [...new Set((await ask(offlineKey, message)).urgent?.signs.map((sign) => sign.category) ?? [])];
          if (got.sort().join() !== [...categories].sort().join()) wrong.push(`${message}: ${got.join()}`);
        }),
      );
    }
    expect(wrong).toEqual([]);
  });
});

describe("the urgent notice with a provider", () => {
  test("the provider's text cannot hide it: notice and advice first, the instructions say so, the answer kept", async () => {
    const seen = openai.requests.length;
    const { chunks, message } = await sendWithTransport(providerApp, providerKey, {
      message: "crushing chest pain and I can't breathe",
      model: "gpt-4.1-mini",
    });
    expect(chunks.findIndex((chunk) => chunk.type === "data-urgent")).toBeLessThan(firstTextIndex(chunks));
    const texts = (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
    expect(texts[0]).toStartWith("Please seek urgent care.");
    expect(texts.at(-1)).toContain("Aspirin (RxNorm RxCUI 1191)");
    const instructions = JSON.stringify(openai.requests[seen]?.body);
    expect(instructions).toContain("red-flag signs in this message: Chest pain or pressure; Difficulty breathing");
  });

  test("a slice of the bank through the provider: the same notices as with the offline model", async () => {
    const slice = bank.messages.filter((_, index) => index % 6 === 0);
    expect(slice.some((entry) => entry.categories.length === 0)).toBe(true);
    const wrong: string[] = [];
    for (const { message, categories } of slice) {
      const response = await call(providerApp, "/api/v1/health/chat", {
        method: "POST",
        key: providerKey,
        body: { message, model: "gpt-4.1-mini" },
      });
      const reply = await json<ChatReply>(response);
      const got = [...new Set(reply.urgent?.signs.map((sign) => sign.category) ?? [])].sort().join();
      const leads = reply.urgent ? reply.text.startsWith(reply.urgent.advice) : !reply.text.startsWith("Please seek");
      if (got !== [...categories].sort().join() || !leads) wrong.push(`${message}: ${got}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("an entry the chat records", () => {
  test("an urgent symptom in the entry adds the notice right after that tool's result", async () => {
    const account = await healthAccount(deps, app);
    const ctx = { sql: deps.sql, accountId: account.accountId };
    const log = await createLog(ctx, { title: "This week", kind: "acute" });
    const entry = await addEntry(ctx, { logId: log.id, entry: { symptoms: ["chest_pain"], severity: 7 } });
    const tracker = noticeTracker(ctx, null);
    expect(tracker.opening()).toEqual([]);
    const input = { trackerId: log.id, entry: { symptoms: ["chest_pain"] } };
    expect(
      tracker.after({ type: "tool-input-available", toolCallId: "c1", toolName: "add_health_log_entry", input }),
    ).toBeUndefined();
    const extra = await tracker.after({ type: "tool-output-available", toolCallId: "c1", output: entry });
    expect(extra?.[0]).toMatchObject({ type: "data-urgent", data: { source: "entry", signs: [{ id: "chest_pain" }] } });
    const stored = tracker.stored([
      { type: "step-start" },
      { type: "tool-add_health_log_entry", toolCallId: "c1" },
      { type: "text", text: "Saved." },
    ]);
    expect(stored.map((part) => part.type)).toEqual([
      "step-start",
      "tool-add_health_log_entry",
      "data-urgent",
      "text",
      "text",
    ]);
    // A mild entry adds nothing.
    const mild = await addEntry(ctx, { logId: log.id, entry: { symptoms: ["headache"] } });
    const quiet = noticeTracker(ctx, null);
    quiet.after({ type: "tool-input-available", toolCallId: "c2", toolName: "add_health_log_entry", input });
    expect(await quiet.after({ type: "tool-output-available", toolCallId: "c2", output: mild })).toEqual([]);
  });
});
