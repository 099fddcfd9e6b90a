import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { resolveAnalyte } from "../../../shared/labs/analytes";
import type { LabImport, LabPanel, LabPanelList } from "../../../shared/labs/schemas";
import type { UploadInfo } from "../../../shared/uploads/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { LAB_REPORTS, type LabReportFixture, prosePdf, type TruthResult } from "../../helpers/labReports";
import { makePdf, presign, uploadFile } from "../../helpers/uploads";
import { webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;
let workers: Workers;
let owner: TestAccount;

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
});

afterAll(async () => {
  await workers?.close();
});

const IMPORT = "/api/v1/health/labs/import";
const importFile = (fileId: string, key = owner.apiKey, on = app) =>
  call(on, IMPORT, { method: "POST", key, body: { file_id: fileId } });

async function uploadPdf(pdf: Uint8Array, key = owner.apiKey): Promise<UploadInfo> {
  const info = await uploadFile(app, key, { bytes: pdf, contentType: "application/pdf", filename: "report.pdf" });
  expect(info.status).toBe("ready");
  return info;
}

async function imported(response: Response, status = 201): Promise<LabPanel[]> {
  if (response.status !== status) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  return (await json<LabImport>(response)).panels;
}

/** A report drawn line by line, one array per page (pdf.js joins each drawn line back into one). */
async function reportPdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    lines.forEach((line, i) => {
      page.drawText(line, { x: 50, y: 800 - 16 * i, size: 10, font });
    });
  }
  return doc.save();
}

/** A result of the generator's truth as the API stores it: code resolved from name and unit, no page. */
function stored(truth: TruthResult) {
  return {
    name: truth.name,
    code: resolveAnalyte(truth.name, truth.unit)?.code ?? null,
    value: truth.value,
    valueText: truth.valueText,
    unit: truth.unit,
    referenceRange: { low: truth.low, high: truth.high, text: truth.rangeText },
    flag: truth.flag,
  };
}

/** The PDF of generated layout `index`. */
const reportOf = async (index: number) => (await (LAB_REPORTS[index] as () => Promise<LabReportFixture>)()).pdf;

const utc = (printed: string) => new Date(`${printed.length === 10 ? `${printed}T00:00:00` : printed}Z`).toISOString();

describe("importing the generated lab reports", () => {
  const fixtures: Promise<LabReportFixture>[] = LAB_REPORTS.map((make) => make());
  for (const [index, make] of LAB_REPORTS.entries()) {
    test(`${make.name}: one panel equal to the generator's truth`, async () => {
      const fixture = (await fixtures[index]) as LabReportFixture;
      const upload = await uploadPdf(fixture.pdf);
      const [panel, ...others] = await imported(await importFile(upload.fileId));
      expect(others).toEqual([]);
      const pages = [...new Set(fixture.truth.results.map((result) => result.page))];
      expect(panel).toMatchObject({
        lab: fixture.truth.lab,
        collectedAt: utc(fixture.truth.collectedAt as string),
        source: { fileId: upload.fileId, pages },
      });
      expect(panel?.results).toEqual(fixture.truth.results.map(stored));
      expect(panel?.results.filter((result) => result.code !== null).length).toBeGreaterThan(4);
      const listed = await json<LabPanelList>(await call(app, "/api/v1/health/labs?limit=100", { key: owner.apiKey }));
      expect(listed.panels.find((item) => item.id === panel?.id)).toEqual(panel as LabPanel);
    });
  }
  test("the tables span two pages and their panels name both", async () => {
    const tables = await Promise.all(fixtures.slice(2, 4));
    for (const fixture of tables) expect(new Set(fixture.truth.results.map((r) => r.page))).toEqual(new Set([1, 2]));
  });
});

describe("dates", () => {
  test("a report printing two collections gives one panel per collection, newest first", async () => {
    const pdf = await reportPdf([
      [
        "Harbour Clinical Laboratory",
        "Patient: Ana Lima",
        "Collected: 2026-01-10 09:00",
        "Glucose 5.2 mmol/L 3.9-5.5",
        "Hemoglobin 13.1 g/dL 12.0-15.5",
      ],
      ["Collected: 2026-02-11 08:15", "Glucose 6.1 mmol/L 3.9-5.5 H"],
    ]);
    const upload = await uploadPdf(pdf);
    const panels = await imported(await importFile(upload.fileId));
    expect(panels.map((p) => [p.collectedAt, p.lab, p.source?.pages, p.results.map((r) => r.name)])).toEqual([
      ["2026-02-11T08:15:00.000Z", "Harbour Clinical Laboratory", [2], ["Glucose"]],
      ["2026-01-10T09:00:00.000Z", "Harbour Clinical Laboratory", [1], ["Glucose", "Hemoglobin"]],
    ]);
    expect(panels[0]?.results[0]).toMatchObject({ value: 6.1, flag: "high", code: "2345-7" });
  });

  test("a report without a collection date is dated by its upload", async () => {
    const upload = await uploadPdf(await reportPdf([["Harbour Clinical Laboratory", "Potassium 4.2 mmol/L 3.5-5.0"]]));
    const [panel] = await imported(await importFile(upload.fileId));
    expect(panel?.collectedAt).toBe(upload.createdAt);
    expect(panel?.results).toHaveLength(1);
  });
});

describe("what cannot be imported", () => {
  test("a letter full of values → 422 NO_LAB_RESULTS with the reason; nothing stored", async () => {
    const upload = await uploadPdf(
      await prosePdf([
        "Dear Ms Lima, your cholesterol was 5.2 mmol/L, slightly above the 5.0 mmol/L we aim for, and your hemoglobin was 13.5 g/dL.",
      ]),
    );
    const response = await importFile(upload.fileId);
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.code).toBe("NO_LAB_RESULTS");
    expect(error.message).toContain("no line of its text reads as a test result");
    const [row] = await deps.sql`select count(*)::int as n from lab_panels where source_file_id = ${upload.fileId}`;
    expect(row?.n).toBe(0);
  });

  test("a PDF without a text layer → 422 naming it", async () => {
    const upload = await uploadPdf(await reportPdf([[]]));
    const error = await errorOf(await importFile(upload.fileId));
    expect(error).toMatchObject({ code: "NO_LAB_RESULTS", message: expect.stringContaining("no text layer") });
  });

  test("a text upload, a pending upload → 409 CONFLICT", async () => {
    const text = await uploadFile(app, owner.apiKey, {
      bytes: new TextEncoder().encode("Glucose 5.2 mmol/L 3.9-5.5"),
      contentType: "text/plain",
      filename: "labs.txt",
    });
    const notPdf = await importFile(text.fileId);
    expect(notPdf.status).toBe(409);
    expect((await errorOf(notPdf)).message).toContain("Only PDF");
    const ticket = await json<{ fileId: string }>(
      await presign(app, owner.apiKey, { filename: "a.pdf", contentType: "application/pdf", size: 100 }),
    );
    const pending = await importFile(ticket.fileId);
    expect(pending.status).toBe(409);
    expect((await errorOf(pending)).message).toContain("is pending");
  });

  test("another account's file, an unknown id and a non-id → 404", async () => {
    const upload = await uploadPdf(await makePdf(["Glucose 5.2 mmol/L 3.9-5.5"]));
    const stranger = await healthAccount(deps, app);
    for (const id of [upload.fileId, crypto.randomUUID(), "nope"]) {
      const response = await importFile(id, stranger.apiKey);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("NOT_FOUND");
    }
  });

  test("without consent → 403 CONSENT_REQUIRED; a free plan → 403 PLAN_REQUIRED", async () => {
    const account = await healthAccount(deps, app);
    const upload = await uploadPdf(await reportOf(0), account.apiKey);
    expect(
      (await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: account.apiKey })).status,
    ).toBe(200);
    const response = await importFile(upload.fileId, account.apiKey);
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
    const free = await healthAccount(deps, app, { plan: "free", consent: false });
    expect((await errorOf(await importFile(upload.fileId, free.apiKey))).code).toBe("PLAN_REQUIRED");
  });
});

describe("idempotency and the wait", () => {
  test("importing a file again answers its panels with 200, and concurrent imports store one set", async () => {
    const upload = await uploadPdf(await reportOf(1));
    const [first, second] = await Promise.all([importFile(upload.fileId), importFile(upload.fileId)]);
    const ids = (panels: LabPanel[]) => panels.map((panel) => panel.id);
    const a = await json<LabImport>(first as Response);
    const b = await json<LabImport>(second as Response);
    expect(ids(a.panels)).toEqual(ids(b.panels));
    const again = await imported(await importFile(upload.fileId), 200);
    expect(again).toEqual(a.panels);
    const [row] = await deps.sql`select count(*)::int as n from lab_panels where source_file_id = ${upload.fileId}`;
    expect(row?.n).toBe(1);
  });

  test("with no wait: 202 processing, then the panel appears in the list, and importing again answers it", async () => {
    const impatient = createApp({ ...deps, env: { ...deps.env, LAB_IMPORT_WAIT_MS: 0 } });
    const upload = await uploadPdf(await reportOf(2));
    const response = await importFile(upload.fileId, owner.apiKey, impatient);
    expect(response.status).toBe(202);
    expect(await json(response)).toEqual({ status: "processing" });
    let found: LabPanel | undefined;
    for (let tries = 0; !found && tries < 250; tries++) {
      const list = await json<LabPanelList>(await call(app, "/api/v1/health/labs?limit=100", { key: owner.apiKey }));
      found = list.panels.find((panel) => panel.source?.fileId === upload.fileId);
      if (!found) await Bun.sleep(20);
    }
    expect(found?.results).toHaveLength(12);
    expect(await imported(await importFile(upload.fileId, owner.apiKey, impatient), 200)).toEqual([found as LabPanel]);
  });

  test("the website imports through its mirror, POST /api/health/labs/import", async () => {
    const user = await webUser(app, deps, { plan: "go" });
    const consent = { consentGiven: true, conditions: [], medications: [] };
    expect((await webCall(app, user, "/api/health/profile", { method: "POST", body: consent })).status).toBe(200);
    const key = await json<{ key: string }>(await webCall(app, user, "/api/dashboard/keys", { method: "POST" }));
    const upload = await uploadPdf(await reportOf(3), key.key);
    const body = { file_id: upload.fileId };
    const response = await webCall(app, user, "/api/health/labs/import", { method: "POST", body });
    expect((await imported(response))[0]?.results).toHaveLength(12);
    const noCsrf = await webCall(app, user, "/api/health/labs/import", { method: "POST", body, csrf: null });
    expect((await errorOf(noCsrf)).code).toBe("CSRF_FAILED");
  });
});
