import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { seedDemoReferences } from "../../../scripts/lib/seedReferences";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { databaseUrl } from "../../../shared/core/env";
import { createSql } from "../../../shared/db/sql";
import { startWorkers, type Workers } from "../../../workers/runner";
import bank from "../../fixtures/questions/everyday.json";
import heldOut from "../../fixtures/questions/held-out.json";
import { makePng } from "../../helpers/files";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, json, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { labelledReport } from "../../helpers/labReports";
import {
  type BankQuestion,
  importSample,
  isRecordAccount,
  type RecordAccount,
  replyFailures,
  toolsRun,
} from "../../helpers/questionBank";
import { makePdf, uploadFile } from "../../helpers/uploads";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";

/**
 * The question banks (test/fixtures/questions) through POST /api/v1/health/chat with the offline
 * model: real workers, the demo MONDO slice and papers, the demo reference cache and the
 * RxNav/openFDA replay; the main account also has a migraine diary and three lab panels, and the
 * record accounts a real sample record imported through the API. Each everyday question must run
 * its tools and its answer must say what it lists; the held-out questions (written before the
 * answers they test, never tuned on) are counted, and held at the count they first reached.
 */
const QUESTIONS = bank.questions as BankQuestion[];
const HELD_OUT = heldOut.questions as BankQuestion[];
/**
 * Held-out questions that pass, as first measured before any change made for them (never raise it by
 * tuning). The first run (2026-11-29) passed 4 of 5; the flu question's "years ago" holds only while
 * the time since its dose is a whole number of years ("8 years ago", not "8 years and 1 month
 * ago"), so 3 is what holds on every date.
 */
const HELD_OUT_FLOOR = 3;

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

/**
 * Three lab panels: HbA1c falling (7.2, 6.8, 6.4 %, all high), cholesterol high but falling, HDL
 * normal, glucose in mg/dL (high, then normal), and one TSH.
 */
const PANELS = [
  {
    collectedAt: "2025-09-10T08:00:00Z",
    results: [
      { name: "HbA1c", value: 7.2, unit: "%", referenceRange: { text: "4.0-5.6" } },
      { name: "Glucose", value: 130, unit: "mg/dL", referenceRange: { text: "70-99" } },
      { name: "Total cholesterol", value: 236, unit: "mg/dL", referenceRange: { text: "<200" } },
      { name: "LDL cholesterol", value: 158, unit: "mg/dL", referenceRange: { text: "<130" } },
      { name: "HDL cholesterol", value: 44, unit: "mg/dL", referenceRange: { text: ">40" } },
    ],
  },
  {
    collectedAt: "2026-01-12T08:00:00Z",
    results: [
      { name: "Hemoglobin A1c", value: 6.8, unit: "%", referenceRange: { text: "4.0-5.6" } },
      { name: "Cholesterol, total", value: 221, unit: "mg/dL", referenceRange: { text: "<200" } },
      { name: "LDL-C", value: 142, unit: "mg/dL", referenceRange: { text: "<130" } },
      { name: "HDL-C", value: 47, unit: "mg/dL", referenceRange: { text: ">40" } },
    ],
  },
  {
    collectedAt: "2026-03-14T08:30:00Z",
    lab: "Riverside Pathology",
    results: [
      { name: "HbA1c", value: 6.4, unit: "%", referenceRange: { text: "4.0-5.6" } },
      { name: "Glucose", value: 99, unit: "mg/dL", referenceRange: { text: "70-99" } },
      { name: "Total cholesterol", value: 212, unit: "mg/dL", referenceRange: { text: "<200" } },
      { name: "LDL cholesterol", value: 131, unit: "mg/dL", referenceRange: { text: "<130" } },
      { name: "HDL cholesterol", value: 52, unit: "mg/dL", referenceRange: { text: ">40" } },
      { name: "TSH", value: 2.1, unit: "mIU/L", referenceRange: { text: "0.4-4.0" } },
    ],
  },
];

async function withLabs(apiKey: string): Promise<void> {
  for (const body of PANELS) {
    const response = await call(app, "/api/v1/health/labs", { method: "POST", key: apiKey, body });
    expect(response.status).toBe(201);
  }
}

/** One account per record sample, made on first use: questions only read it. */
const recordAccounts = new Map<RecordAccount, Promise<string>>();

function recordAccount(kind: RecordAccount): Promise<string> {
  let apiKey = recordAccounts.get(kind);
  if (!apiKey) {
    apiKey = account().then(async (key) => {
      await importSample(app, key, kind);
      return key;
    });
    recordAccounts.set(kind, apiKey);
  }
  return apiKey;
}

async function keyFor(question: BankQuestion): Promise<string> {
  if (!question.account || question.account === "main") return main;
  if (isRecordAccount(question.account)) return recordAccount(question.account);
  const apiKey = await account();
  if (question.account === "twoLogs") await createTracker(app, apiKey, "Knee injury log", "custom");
  await createTracker(app, apiKey, "Flu, November", "acute");
  return apiKey;
}

async function attachment(apiKey: string, kind: "png" | "pdf" | "report"): Promise<string> {
  const file =
    kind === "png"
      ? { bytes: makePng(64, 64), contentType: "image/png", filename: "rash.png" }
      : {
          bytes: kind === "pdf" ? await makePdf(["HbA1c 6.1 % (reference 4.0-5.6)"]) : (await labelledReport()).pdf,
          contentType: "application/pdf",
          filename: kind === "pdf" ? "labs.pdf" : "riverside.pdf",
        };
  const upload = await uploadFile(app, apiKey, file);
  expect(upload.status).toBe("ready");
  return upload.fileId;
}

async function ask(question: BankQuestion): Promise<ChatReply> {
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

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  const shared = withUpstream(await ownIndexes(await testDeps(), "questions"), upstream);
  // A pool of its own: the offline model keeps the medication names it read per pool for a minute,
  // and names read by an earlier file (before these references were seeded) would hide "Ambien".
  deps = { ...shared, sql: createSql(databaseUrl(shared.env), { max: 4 }) };
  // Only the demo references: the seed keeps entries another file cached from the upstream fixtures.
  await deps.sql`delete from reference_cache`;
  await seedDemoReferences(deps.env);
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda", "uploads"] });
  app = createApp(deps);
  main = await account();
  await withDiary(main);
  await withLabs(main);
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await deps?.sql.end({ timeout: 5 });
  await upstream?.stop();
});

describe("the everyday question bank", () => {
  test("has at least 40 questions, 20 of them from the first measurement", () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(40);
    expect(QUESTIONS.filter((q) => q.issue).length).toBe(20);
  });

  for (const question of QUESTIONS) {
    test(question.message, async () => {
      expect(replyFailures(question, await ask(question))).toEqual([]);
    }, 30_000);
  }
});

describe("the held-out record questions", () => {
  test(`at least ${HELD_OUT_FLOOR} of ${HELD_OUT.length} pass`, async () => {
    const failed: string[] = [];
    for (const question of HELD_OUT) {
      const failures = replyFailures(question, await ask(question));
      if (failures.length) failed.push(`${question.message}: ${failures.join("; ")}`);
    }
    const passed = HELD_OUT.length - failed.length;
    console.log(
      `held-out record questions: ${passed} of ${HELD_OUT.length} pass${failed.map((f) => `\n  ${f}`).join("")}`,
    );
    expect(passed).toBeGreaterThanOrEqual(HELD_OUT_FLOOR);
  }, 120_000);
});

describe("when a reference cannot be reached", () => {
  test("an unreachable RxNav is one plain sentence, not the error", async () => {
    // Nothing cached for the name, so the lookup reaches the replay, which answers 503 (retried, then given up).
    await deps.sql`delete from reference_cache where key ilike ${"%metformin%"}`;
    upstream.mode = "fail";
    try {
      const reply = await ask({ message: "Is it safe to drink alcohol with metformin?", tools: [], answer: [] });
      expect(toolsRun(reply)).toEqual(["get_medication_reference"]);
      expect(reply.text).toContain(
        "I could not reach the medication reference (RxNorm) just now; try again in a minute.",
      );
      expect(reply.text).not.toMatch(/Error|did not answer|retry later|RxNav/);
    } finally {
      upstream.mode = "normal";
    }
  }, 30_000);
});
