import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { UIMessageChunk } from "ai";
import { createApp } from "../../../api/app";
import { noticeRecorder, safetyOf } from "../../../shared/chat/turn/urgent";
import { closeDeps, createDeps, type Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import type { Env } from "../../../shared/core/env";
import { addEntry, createLog } from "../../../shared/health/logs";
import { assessMessage } from "../../../shared/safety/assess";
import { atLeast, type TriageLevel } from "../../../shared/safety/levels";
import { startWorkers, type Workers } from "../../../workers/runner";
import { openaiReplayEnv, type ProviderReplay, startProviderReplay } from "../../fixtures/providers/replayServer";
import development from "../../fixtures/triage/development.json";
import { sendWithTransport } from "../../helpers/chat";
import { healthAccount } from "../../helpers/health";
import { call, json, type TestApp } from "../../helpers/http";
import { testDeps, testLog } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, upstreamEnv } from "../../helpers/upstream";

/**
 * The triage through the whole chat path, with the offline model and with a provider replaying
 * OpenAI's wire format: the level and (from `urgent` up) the notice come first in the stream, the
 * JSON reply, the stored message and the MCP result, and the model's answer still follows them.
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

/** Every tenth message of the development bank: what the API reports must be the engine's verdict. */
const SLICE = development.messages.filter((_, index) => index % 10 === 0);
const expected = (text: string) => assessMessage(text).level;

describe("the triage with the offline model", () => {
  test("streamed: a data-triage part, then data-urgent, before any text; then the advice, then the answer", async () => {
    const { chunks, message } = await sendWithTransport(app, offlineKey, { message: MENINGITIS });
    const triage = chunks.findIndex((chunk) => chunk.type === "data-triage");
    const urgent = chunks.findIndex((chunk) => chunk.type === "data-urgent");
    expect(triage).toBeGreaterThan(-1);
    expect(triage).toBeLessThan(urgent);
    expect(urgent).toBeLessThan(firstTextIndex(chunks));
    const parts = message?.parts ?? [];
    expect(parts[0]).toMatchObject({ type: "data-triage", data: { level: "emergency" } });
    expect(parts[1]).toMatchObject({
      type: "data-urgent",
      data: { source: "message", signs: expect.arrayContaining([expect.objectContaining({ category: "meningitis" })]) },
    });
    expect(parts[2]).toMatchObject({ type: "text", text: expect.stringMatching(/^This could be an emergency/) });
    // The assistant's own answer still follows.
    expect(parts.filter((part) => part.type === "text").length).toBeGreaterThan(1);
  });

  test("JSON reply, stored message and MCP health_chat carry the level; a plain question is `none`", async () => {
    const reply = await ask(offlineKey, MENINGITIS);
    expect(reply.triage.level).toBe("emergency");
    expect(reply.urgent?.signs.map((sign) => sign.category)).toContain("meningitis");
    expect(reply.text.startsWith(reply.urgent?.advice ?? "-")).toBe(true);
    const stored = await json<{ messages: { parts: { type: string; data?: { level?: string } }[] }[] }>(
      await call(app, `/api/v1/health/chat/${reply.chat_id}`, { key: offlineKey }),
    );
    expect(stored.messages.at(-1)?.parts[0]).toMatchObject({ type: "data-triage", data: { level: "emergency" } });
    const plain = await ask(offlineKey, "What are the side effects of aspirin?");
    expect(plain.triage.level).toBe("none");
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
    expect(result.structuredContent.triage.level).toBe("emergency");
    expect(result.structuredContent.urgent?.signs.map((sign) => sign.category)).toEqual(["suicide_self_harm"]);
    expect(result.content[0]?.text).toStartWith("URGENT: Thoughts of suicide or self-harm.\nTriage: emergency.");
    expect(result.structuredContent.text).toContain("988");
  });

  test("a slice of the development bank through the API: the engine's level, and the notice exactly from urgent up", async () => {
    const wrong: string[] = [];
    for (let i = 0; i < SLICE.length; i += 8) {
      await Promise.all(
        SLICE.slice(i, i + 8).map(async ({ text }) => {
          const reply = await ask(offlineKey, text);
          const level = expected(text);
          const noticed = reply.urgent !== null;
          if (reply.triage.level !== level || noticed !== atLeast(level, "urgent")) {
            wrong.push(`${text}: ${reply.triage.level}, notice ${noticed}`);
          }
        }),
      );
    }
    expect(wrong).toEqual([]);
  });
});

describe("the triage with a provider", () => {
  test("the provider's text cannot hide it: level, notice and advice first, the instructions say so, the answer kept", async () => {
    const seen = openai.requests.length;
    const { chunks, message } = await sendWithTransport(providerApp, providerKey, {
      message: "crushing chest pain and I can't breathe",
      model: "gpt-4.1-mini",
    });
    expect(chunks.findIndex((chunk) => chunk.type === "data-triage")).toBe(
      chunks.findIndex((chunk) => chunk.type.startsWith("data-")),
    );
    expect(chunks.findIndex((chunk) => chunk.type === "data-urgent")).toBeLessThan(firstTextIndex(chunks));
    const texts = (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
    expect(texts[0]).toStartWith("This could be an emergency");
    expect(texts.at(-1)).toContain("Aspirin (RxNorm RxCUI 1191)");
    const instructions = JSON.stringify(openai.requests[seen]?.body);
    expect(instructions).toContain("The service's safety check rated this message emergency");
  });

  test("the model's structured triage can raise the level, never lower it", async () => {
    const askProvider = async (message: string) =>
      json<ChatReply>(
        await call(providerApp, "/api/v1/health/chat", {
          method: "POST",
          key: providerKey,
          body: { message, model: "gpt-4.1-mini" },
        }),
      );
    try {
      openai.triage = "emergency";
      const asked = openai.triageRequests.length;
      const raised = await askProvider("what is the usual dose of aspirin?");
      expect(assessMessage("what is the usual dose of aspirin?").level).toBe("none");
      expect(raised.triage.level).toBe("emergency");
      expect(raised.triage.model?.level).toBe("emergency");
      expect(raised.triage.reason).toContain("The model rated it emergency");
      expect(raised.urgent).not.toBeNull();
      expect(raised.text).toStartWith("This could be an emergency");
      // Asked through the AI SDK's structured output: a JSON schema with the five levels.
      const request = JSON.stringify(openai.triageRequests[asked]?.body);
      expect(request).toContain('"type":"json_schema"');
      expect(request).toContain('"self_care"');
      openai.triage = "none";
      const kept = await askProvider("crushing chest pain and I can't breathe");
      expect(kept.triage.model?.level).toBe("none");
      expect(kept.triage.level).toBe("emergency");
    } finally {
      openai.triage = "none";
    }
  });

  test("a slice of the bank through the provider: the same levels as with the offline model", async () => {
    const slice = SLICE.filter((_, index) => index % 3 === 0);
    expect(slice.some((entry) => entry.level === "none")).toBe(true);
    const wrong: string[] = [];
    for (const { text } of slice) {
      const response = await call(providerApp, "/api/v1/health/chat", {
        method: "POST",
        key: providerKey,
        body: { message: text, model: "gpt-4.1-mini" },
      });
      const reply = await json<ChatReply>(response);
      const level: TriageLevel = expected(text);
      const leads = reply.urgent ? reply.text.startsWith(reply.urgent.advice) : true;
      if (reply.triage.level !== level || !leads) wrong.push(`${text}: ${reply.triage.level}`);
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
    const quietTurn = safetyOf({ level: "none", presentations: [], reason: "a request" });
    const notices = noticeRecorder(ctx, quietTurn);
    expect(notices.opening().map((chunk) => chunk.type)).toEqual(["data-triage"]);
    const input = { trackerId: log.id, entry: { symptoms: ["chest_pain"] } };
    expect(
      notices.after({ type: "tool-input-available", toolCallId: "c1", toolName: "add_health_log_entry", input }),
    ).toBeUndefined();
    const extra = await notices.after({ type: "tool-output-available", toolCallId: "c1", output: entry });
    expect(extra?.[0]).toMatchObject({ type: "data-urgent", data: { source: "entry", signs: [{ id: "chest_pain" }] } });
    const stored = notices.stored([
      { type: "step-start" },
      { type: "tool-add_health_log_entry", toolCallId: "c1" },
      { type: "text", text: "Saved." },
    ]);
    expect(stored.map((part) => part.type)).toEqual([
      "data-triage",
      "step-start",
      "tool-add_health_log_entry",
      "data-urgent",
      "text",
      "text",
    ]);
    // A mild entry adds nothing.
    const mild = await addEntry(ctx, { logId: log.id, entry: { symptoms: ["headache"] } });
    const quiet = noticeRecorder(ctx, quietTurn);
    quiet.after({ type: "tool-input-available", toolCallId: "c2", toolName: "add_health_log_entry", input });
    expect(await quiet.after({ type: "tool-output-available", toolCallId: "c2", output: mild })).toEqual([]);
  });
});
