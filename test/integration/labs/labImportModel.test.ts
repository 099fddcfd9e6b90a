import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { Env } from "../../../shared/core/env";
import { unsupportedClaim } from "../../../shared/labs/modelRead";
import type { LabImport } from "../../../shared/labs/schemas";
import { modelCatalog } from "../../../shared/llm/models";
import { startWorkers, type Workers } from "../../../workers/runner";
import {
  openaiReplayEnv,
  type ProviderReplay,
  type ReceivedRequest,
  startProviderReplay,
} from "../../fixtures/providers/replayServer";
import { healthAccount } from "../../helpers/health";
import { call, json, type TestAccount, type TestApp } from "../../helpers/http";
import { logLines, testDeps } from "../../helpers/infra";
import { uploadFile } from "../../helpers/uploads";

/**
 * A configured model reads lab reports instead of the parser, through the OpenAI provider against
 * its replay (test/fixtures/providers/openai/structured.sse: Glucose 5.2 mmol/L and Potassium
 * "4,2" mmol/L on page 1). Its answer stands only where the page prints every value and unit.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let replay: ProviderReplay;
let owner: TestAccount;

beforeAll(async () => {
  replay = startProviderReplay("openai");
  const base = await testDeps();
  const env: Env = { ...base.env, ...openaiReplayEnv(replay) };
  deps = { ...base, env, models: modelCatalog(env) };
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
});

afterAll(async () => {
  await workers?.close();
  await replay?.stop();
});

async function reportPdf(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  lines.forEach((line, i) => {
    page.drawText(line, { x: 50, y: 800 - 16 * i, size: 10, font });
  });
  return doc.save();
}

async function importLines(lines: string[]): Promise<LabImport> {
  const bytes = await reportPdf(["Harbour Clinical Laboratory", "Collected: 2026-01-10 09:00", ...lines]);
  const upload = await uploadFile(app, owner.apiKey, { bytes, contentType: "application/pdf", filename: "r.pdf" });
  const before = replay.requests.length;
  const response = await call(app, "/api/v1/health/labs/import", {
    method: "POST",
    key: owner.apiKey,
    body: { file_id: upload.fileId },
  });
  expect(response.status).toBe(201);
  // The model was asked, for structured output, with the page text.
  const asked = replay.requests.slice(before);
  expect(asked).toHaveLength(1);
  const [request] = asked as [ReceivedRequest];
  expect((request.body.text as { format: { type: string } }).format.type).toBe("json_schema");
  expect(JSON.stringify(request.body.input)).toContain(lines[0] as string);
  return json<LabImport>(response);
}

const values = (body: LabImport) => body.panels.flatMap((p) => p.results.map((r) => [r.name, r.valueText, r.flag]));

describe("a model reading lab reports", () => {
  test("an answer the page prints is taken, decimal commas and all (the parser reads no such line)", async () => {
    const body = await importLines(["Glucose 5.2 mmol/L 3.9-5.5", "Potassium 4,2 mmol/L 3,5-5,0"]);
    expect(values(body)).toEqual([
      ["Glucose", "5.2", "normal"],
      ["Potassium", "4,2", "normal"],
    ]);
    expect(body.panels[0]).toMatchObject({
      lab: "Harbour Clinical Laboratory",
      collectedAt: "2026-01-10T09:00:00.000Z",
      source: { pages: [1] },
    });
    expect(body.panels[0]?.results[1]).toMatchObject({
      value: 4.2,
      code: "2823-3",
      referenceRange: { low: 3.5, high: 5, text: "3,5-5,0" },
    });
  });

  test("an invented value is refused: the parser's reading is stored instead", async () => {
    // The replayed model still answers Glucose 5.2; this report prints 5.8.
    const body = await importLines(["Glucose 5.8 mmol/L 3.9-5.5 H", "Potassium 4.2 mmol/L 3.5-5.0"]);
    expect(values(body)).toEqual([
      ["Glucose", "5.8", "high"],
      ["Potassium", "4.2", "normal"],
    ]);
    const refusal = logLines.find((line) => line.includes("model reading refused"));
    expect(refusal).toContain('Glucose: \\"5.2\\" is not printed on page 1');
  });

  test("each kind of claim is checked against its page", () => {
    const page = "Glucose 15.2 mg/dL 70-99\nSodium 141 mmol/L 135-145";
    const result = (over: Record<string, unknown>) =>
      ({
        name: "X",
        valueText: "141",
        value: 141,
        unit: "mmol/L",
        referenceRange: { low: 135, high: 145, text: "135-145" },
        flag: null,
        page: 1,
        ...over,
      }) as Parameters<typeof unsupportedClaim>[0][number];
    expect(unsupportedClaim([result({})], [page])).toBeNull();
    expect(unsupportedClaim([result({ valueText: "5.2", value: 5.2 })], [page])).toContain('"5.2" is not printed');
    expect(unsupportedClaim([result({ unit: "g/dL" })], [page])).toContain('"g/dL" is not printed');
    expect(unsupportedClaim([result({ value: 142 })], [page])).toContain("142 is not its printed value");
    const range = { low: 130, high: 145, text: "135-145" };
    expect(unsupportedClaim([result({ referenceRange: range })], [page])).toContain("bound 130");
    expect(unsupportedClaim([result({ page: 2 })], [page])).toContain("no page 2");
  });
});
