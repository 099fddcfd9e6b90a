import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../api/app";
import { seedDemoReferences } from "../../scripts/lib/seedReferences";
import type { Deps } from "../../shared/context/deps";
import type { ChatReply } from "../../shared/conversations/schemas";
import { startWorkers, type Workers } from "../../workers/runner";
import bank from "../fixtures/questions/everyday.json";
import { makePng } from "../helpers/files";
import { addEntry, createTracker, healthAccount } from "../helpers/health";
import { call, json, type TestApp } from "../helpers/http";
import { ownIndexes } from "../helpers/indexes";
import { testDeps } from "../helpers/infra";
import { makePdf, uploadFile } from "../helpers/uploads";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../helpers/upstream";

/**
 * The everyday question bank (test/fixtures/questions) through POST /api/v1/health/chat with the
 * offline model: real workers, the demo MONDO slice and papers, the demo reference cache and the
 * RxNav/openFDA replay. Each question must run its tools and its answer must say what it lists.
 */
interface Question {
  message: string;
  tools: string[];
  exact?: boolean;
  calls?: Record<string, number>;
  answer: string[];
  absent?: string[];
  account?: "main" | "fresh" | "twoLogs";
  attach?: "png" | "pdf";
  issue?: "failed" | "passed";
}
const QUESTIONS = bank.questions as Question[];

const PROFILE = {
  consentGiven: true,
  conditions: ["Hypothyroidism", "Asthma"],
  medications: ["Aspirin 81 mg daily", "Zolpidem 10 mg at night", "Levothyroxine"],
};

let deps: Deps;
let app: TestApp;
let workers: Workers;
let upstream: UpstreamFixtures;
let main: string;

async function account(): Promise<string> {
  const { apiKey } = await healthAccount(deps, app);
  const saved = await call(app, "/api/v1/health/profile", { method: "POST", key: apiKey, body: PROFILE });
  expect(saved.status).toBe(200);
  return apiKey;
}

/** A migraine diary with entries on three days, severity falling (7, 5, 3). */
async function withDiary(apiKey: string): Promise<void> {
  const log = await createTracker(app, apiKey, "Migraine diary", "custom");
  const days = [
    { severity: 7, symptoms: ["headache", "nausea"] },
    { severity: 5, symptoms: ["headache"] },
    { severity: 3, symptoms: ["headache", "fatigue"] },
  ];
  for (const [i, body] of days.entries()) {
    const response = await addEntry(app, apiKey, log.id, body);
    expect(response.status).toBe(201);
    const { id } = await json<{ id: string }>(response);
    await deps.sql`update tracker_entries set recorded_at = now() - make_interval(days => ${2 - i}) where id = ${id}`;
  }
}

async function keyFor(question: Question): Promise<string> {
  if (!question.account || question.account === "main") return main;
  const apiKey = await account();
  if (question.account === "twoLogs") await createTracker(app, apiKey, "Knee injury log", "custom");
  await createTracker(app, apiKey, "Flu, November", "acute");
  return apiKey;
}

async function attachment(apiKey: string, kind: "png" | "pdf"): Promise<string> {
  const file =
    kind === "png"
      ? { bytes: makePng(64, 64), contentType: "image/png", filename: "rash.png" }
      : {
          bytes: await makePdf(["HbA1c 6.1 % (reference 4.0-5.6)"]),
          contentType: "application/pdf",
          filename: "labs.pdf",
        };
  const upload = await uploadFile(app, apiKey, file);
  expect(upload.status).toBe("ready");
  return upload.fileId;
}

async function ask(question: Question): Promise<ChatReply> {
  const apiKey = await keyFor(question);
  const attachment_ids = question.attach ? [await attachment(apiKey, question.attach)] : undefined;
  const response = await call(app, "/api/v1/health/chat", {
    method: "POST",
    key: apiKey,
    body: { message: question.message, ...(attachment_ids ? { attachment_ids } : {}) },
  });
  expect(response.status).toBe(200);
  return json<ChatReply>(response);
}

const toolsRun = (reply: ChatReply) =>
  reply.message.parts.flatMap((part) => (part.type.startsWith("tool-") ? [part.type.slice(5)] : []));

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = withUpstream(await ownIndexes(await testDeps(), "questions"), upstream);
  await seedDemoReferences(deps.env);
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda", "uploads"] });
  app = createApp(deps);
  main = await account();
  await withDiary(main);
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await upstream?.stop();
});

describe("the everyday question bank", () => {
  test("has at least 40 questions, 20 of them from the first measurement", () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(40);
    expect(QUESTIONS.filter((q) => q.issue).length).toBe(20);
  });

  for (const question of QUESTIONS) {
    test(question.message, async () => {
      const reply = await ask(question);
      const run = toolsRun(reply);
      expect(reply.finish_reason).toBe("stop");
      expect(reply.text).toContain("offline reference assistant");
      for (const tool of question.tools) expect(run).toContain(tool);
      if (question.exact) expect([...new Set(run)].sort()).toEqual([...new Set(question.tools)].sort());
      for (const [tool, n] of Object.entries(question.calls ?? {})) {
        expect(run.filter((name) => name === tool).length).toBeGreaterThanOrEqual(n);
      }
      const text = reply.text.toLowerCase();
      for (const words of question.answer) expect(text).toContain(words.toLowerCase());
      for (const words of question.absent ?? []) expect(text).not.toContain(words.toLowerCase());
      expect(reply.message.parts.every((part) => !("state" in part) || part.state !== "output-error")).toBe(true);
    }, 30_000);
  }
});
