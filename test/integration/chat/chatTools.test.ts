import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, json, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

/** The offline model through the whole pipeline, one question per tool. */
let deps: Deps;
let app: TestApp;
let key: string;
let workers: Workers;

beforeAll(async () => {
  deps = await ownIndexes(await testDeps(), "chattools");
  workers = await startWorkers(deps, { queues: ["chat"] });
  app = createApp(deps);
  key = (await healthAccount(deps, app)).apiKey;
}, 60_000);

afterAll(async () => {
  await workers?.close();
});

async function ask(message: string, apiKey = key): Promise<ChatReply> {
  const response = await call(app, "/api/v1/health/chat", { method: "POST", key: apiKey, body: { message } });
  expect(response.status).toBe(200);
  return json<ChatReply>(response);
}

const toolsCalled = (reply: ChatReply) =>
  reply.message.parts.flatMap((part) => (part.type.startsWith("tool-") ? [part.type.slice(5)] : []));

describe("offline model: one tool per question, its result quoted", () => {
  test("a condition → the MONDO reference, with its link as a source", async () => {
    const reply = await ask("What is asthma?");
    expect(toolsCalled(reply)).toEqual(["get_condition_reference"]);
    expect(reply.text).toMatch(/asthma \(MONDO:\d{7}\)/i);
    expect(reply.message.parts.some((p) => p.type === "source-url" && String(p.url).includes("MONDO"))).toBe(true);
  });

  test("anything else → a literature search over our paper index", async () => {
    const reply = await ask("Any research on neutrino oscillations?");
    expect(toolsCalled(reply)).toEqual(["search_papers"]);
    const tool = reply.message.parts.find((p) => p.type === "tool-search_papers") as { output?: { data: unknown[] } };
    expect(tool.output?.data.length).toBeGreaterThan(0);
    expect(reply.text).toContain("https://arxiv.org/abs/");
  });

  test("my logs → the caller's logs only, under the same consent rule as REST", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey, "Migraine diary", "custom");
    await addEntry(app, account.apiKey, log.id, { severity: 6 });
    await createTracker(app, key, "Someone else's log");
    const reply = await ask("show my health logs", account.apiKey);
    expect(toolsCalled(reply)).toEqual(["list_health_logs"]);
    expect(reply.text).toContain("Migraine diary");
    expect(reply.text).not.toContain("Someone else's log");
  });

  test("my profile → read only with consent", async () => {
    await call(app, "/api/v1/health/profile", {
      method: "POST",
      key,
      body: { consentGiven: true, conditions: ["Asthma"], medications: ["Salbutamol"] },
    });
    expect((await ask("what is in my profile?")).text).toContain("conditions: Asthma; medications: Salbutamol");
  });
});
