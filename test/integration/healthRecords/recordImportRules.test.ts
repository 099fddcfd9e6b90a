import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { readHealthRecord } from "../../../shared/healthRecords/read";
import type { RecordImport, RecordImportList } from "../../../shared/healthRecords/schemas";
import { findAnalyte } from "../../../shared/labs/analytes";
import type { AnalyteHistory } from "../../../shared/labs/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { readSample, SYNTHEA_BUNDLES } from "../../helpers/healthRecordSamples";
import { call, createTestAccount, errorOf, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { uploadRecord } from "../../helpers/records";
import { makePdf, uploadFile } from "../../helpers/uploads";
import { webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;
let workers: Workers;

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
});

afterAll(async () => {
  await workers?.close();
});

const IMPORT = "/api/v1/health/records/import";
const IMPORTS = "/api/v1/health/records/imports";
const LUNA = readSample(SYNTHEA_BUNDLES.luna);
const LUNA_RECORD = readHealthRecord(LUNA);

const upload = (account: TestAccount, text: string, contentType = "application/json") =>
  uploadRecord(app, account.apiKey, text, { contentType });

const importFile = (account: TestAccount, fileId: string, on: TestApp = app) =>
  call(on, IMPORT, { method: "POST", key: account.apiKey, body: { file_id: fileId } });

const importsOf = async (account: TestAccount) =>
  (await json<RecordImportList>(await call(app, IMPORTS, { key: account.apiKey }))).imports;

async function storedCounts(accountId: string) {
  const [row] = await deps.sql<{ items: number; panels: number; imports: number }[]>`
    select (select count(*)::int from health_record_items where account_id = ${accountId}) as items,
      (select count(*)::int from lab_panels where account_id = ${accountId}) as panels,
      (select count(*)::int from health_record_imports where account_id = ${accountId}) as imports`;
  return row as { items: number; panels: number; imports: number };
}

describe("refused, and nothing stored", () => {
  test("an oversized record: 413", async () => {
    const owner = await healthAccount(deps, app);
    const small = createApp({ ...deps, env: { ...deps.env, RECORD_IMPORT_MAX_BYTES: 4096 } });
    const response = await importFile(owner, await upload(owner, LUNA), small);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("PAYLOAD_TOO_LARGE");
    expect(await storedCounts(owner.accountId)).toEqual({ items: 0, panels: 0, imports: 0 });
  });

  test("a Bundle that fails R4 validation: 422 naming the problem", async () => {
    const owner = await healthAccount(deps, app);
    const bad = { ...JSON.parse(LUNA), timestamp: "yesterday" };
    const response = await importFile(owner, await upload(owner, JSON.stringify(bad)));
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.code).toBe("RECORD_NOT_READABLE");
    expect(error.message).toContain("not valid FHIR R4");
    expect(await storedCounts(owner.accountId)).toEqual({ items: 0, panels: 0, imports: 0 });
  });

  test("a PDF, JSON that is not a Bundle, HTML: 422", async () => {
    const owner = await healthAccount(deps, app);
    const condition = JSON.stringify({ resourceType: "Condition", id: "x", code: { text: "Asthma" } });
    for (const text of [condition, '{"hello": "world"}', "<html><body>portal</body></html>"]) {
      const response = await importFile(owner, await upload(owner, text));
      expect(response.status).toBe(422);
      expect((await errorOf(response)).code).toBe("RECORD_NOT_READABLE");
    }
    const pdf = await uploadFile(app, owner.apiKey, {
      bytes: await makePdf(["Glucose 5.2 mmol/L"]),
      contentType: "application/pdf",
      filename: "labs.pdf",
    });
    const response = await importFile(owner, pdf.fileId);
    expect(response.status).toBe(422);
    expect((await errorOf(response)).message).toContain("neither JSON");
    expect(await storedCounts(owner.accountId)).toEqual({ items: 0, panels: 0, imports: 0 });
  });

  test("the free plan: 403 PLAN_REQUIRED", async () => {
    const free = await createTestAccount(deps, "free");
    const response = await call(app, IMPORT, {
      method: "POST",
      key: free.apiKey,
      body: { file_id: "019aa2b4-0000-7000-8000-000000000000" },
    });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
  });

  test("an unknown property or a missing file_id: 400", async () => {
    const owner = await healthAccount(deps, app);
    for (const body of [{}, { file_id: "x", extra: 1 }, { file_id: "x", proceed: "yes" }]) {
      const response = await call(app, IMPORT, { method: "POST", key: owner.apiKey, body });
      expect(response.status).toBe(400);
    }
  });
});

describe("one set, however often it arrives", () => {
  test("two concurrent imports of one upload store one set", async () => {
    const owner = await healthAccount(deps, app);
    const fileId = await upload(owner, LUNA);
    const answers = await Promise.all([importFile(owner, fileId), importFile(owner, fileId)]);
    const bodies = await Promise.all(answers.map((answer) => json<RecordImport>(answer)));
    // Both waited on one job (201 each), or the second found the first's import (200).
    for (const answer of answers) expect([200, 201]).toContain(answer.status);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(await importsOf(owner)).toHaveLength(1);
    const kept = LUNA_RECORD.summary.kept;
    const counts = await storedCounts(owner.accountId);
    expect(counts.items).toBe(kept.conditions + kept.medications + kept.allergies + kept.immunizations);
    expect(counts.imports).toBe(1);
  });

  test("two uploads of the same bytes imported at once store one set", async () => {
    const owner = await healthAccount(deps, app);
    const [a, b] = await Promise.all([upload(owner, LUNA), upload(owner, LUNA)]);
    const answers = await Promise.all([importFile(owner, a), importFile(owner, b)]);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 201)).toBe(true);
    const ids = await Promise.all(answers.map(async (answer) => (await json<RecordImport>(answer)).id));
    expect(new Set(ids).size).toBe(1);
    expect((await storedCounts(owner.accountId)).imports).toBe(1);
  });

  test("a lab result already stored is left out, and the trend shows it once beside the imported ones", async () => {
    const owner = await healthAccount(deps, app);
    const result = LUNA_RECORD.labResults.find(
      (item) => item.value !== undefined && item.loinc && findAnalyte(item.loinc) && item.effective,
    );
    if (!result?.loinc || result.value === undefined || !result.effective) throw new Error("no catalogue lab result");
    const day = result.effective.slice(0, 10);
    // The same result read from a PDF report before: the test under the name reports print, the
    // same day and value.
    const printedName = findAnalyte(result.loinc)?.name as string;
    const entered = await call(app, "/api/v1/health/labs", {
      method: "POST",
      key: owner.apiKey,
      body: {
        collectedAt: `${day}T00:00:00Z`,
        results: [{ name: printedName, value: result.value, ...(result.unit ? { unit: result.unit } : {}) }],
      },
    });
    expect(entered.status).toBe(201);
    const summary = await json<RecordImport>(await importFile(owner, await upload(owner, LUNA)));
    expect(summary.labResultsAlreadyStored).toBeGreaterThanOrEqual(1);
    const history = await json<AnalyteHistory>(
      await call(app, `/api/v1/health/labs/analytes/${result.loinc}`, { key: owner.apiKey }),
    );
    const sameDay = history.points.filter((point) => point.collectedAt.startsWith(day));
    expect(sameDay).toHaveLength(1);
    const expected = LUNA_RECORD.labResults.filter(
      (item) => item.loinc === result.loinc && item.value !== undefined,
    ).length;
    expect(history.points.length).toBe(expected);
  });
});

describe("asynchronous, undone, deleted", () => {
  test("a slow import answers 202, and the import appears in the list when done", async () => {
    const owner = await healthAccount(deps, app);
    const impatient = createApp({ ...deps, env: { ...deps.env, RECORD_IMPORT_WAIT_MS: 0 } });
    const response = await importFile(owner, await upload(owner, LUNA), impatient);
    expect(response.status).toBe(202);
    expect(await json(response)).toEqual({ status: "processing" });
    let imports: RecordImport[] = [];
    for (let i = 0; i < 200 && imports.length === 0; i++) {
      imports = await importsOf(owner);
      if (imports.length === 0) await Bun.sleep(50);
    }
    expect(imports).toHaveLength(1);
    const one = await call(app, `${IMPORTS}/${imports[0]?.id}`, { key: owner.apiKey });
    expect((await json<RecordImport>(one)).kept).toEqual(LUNA_RECORD.summary.kept);
  });

  test("another account's import cannot be read or undone; a bad id is 404", async () => {
    const owner = await healthAccount(deps, app);
    const other = await healthAccount(deps, app);
    const summary = await json<RecordImport>(await importFile(owner, await upload(owner, LUNA)));
    for (const method of ["GET", "DELETE"] as const) {
      expect((await call(app, `${IMPORTS}/${summary.id}`, { method, key: other.apiKey })).status).toBe(404);
      expect((await call(app, `${IMPORTS}/not-a-uuid`, { method, key: owner.apiKey })).status).toBe(404);
    }
    expect(await importsOf(owner)).toHaveLength(1);
    const undo = await call(app, `${IMPORTS}/${summary.id}`, { method: "DELETE", key: owner.apiKey });
    expect(undo.status).toBe(200);
    expect((await call(app, `${IMPORTS}/${summary.id}`, { method: "DELETE", key: owner.apiKey })).status).toBe(404);
  });

  test("deleting the profile deletes every import with its items and lab panels", async () => {
    const owner = await healthAccount(deps, app);
    await json<RecordImport>(await importFile(owner, await upload(owner, LUNA)));
    const before = await storedCounts(owner.accountId);
    expect(before.items).toBeGreaterThan(0);
    expect(before.panels).toBeGreaterThan(0);
    const deleted = await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: owner.apiKey });
    expect(await json(deleted)).toMatchObject({ deleted: true, recordImportsDeleted: 1 });
    expect(await storedCounts(owner.accountId)).toEqual({ items: 0, panels: 0, imports: 0 });
  });

  test("the website imports and undoes through its mirror, with the session cookie and CSRF token", async () => {
    const user = await webUser(app, deps, { plan: "go" });
    const consent = { consentGiven: true, conditions: [], medications: [] };
    expect((await webCall(app, user, "/api/health/profile", { method: "POST", body: consent })).status).toBe(200);
    const key = await json<{ key: string }>(await webCall(app, user, "/api/dashboard/keys", { method: "POST" }));
    const owner = { apiKey: key.key } as TestAccount;
    const body = { file_id: await upload(owner, LUNA) };
    const noCsrf = await webCall(app, user, "/api/health/records/import", { method: "POST", body, csrf: null });
    expect((await errorOf(noCsrf)).code).toBe("CSRF_FAILED");
    const response = await webCall(app, user, "/api/health/records/import", { method: "POST", body });
    expect(response.status).toBe(201);
    const summary = await json<RecordImport>(response);
    expect(summary.kept).toEqual(LUNA_RECORD.summary.kept);
    const undo = await webCall(app, user, `/api/health/records/imports/${summary.id}`, { method: "DELETE" });
    expect(undo.status).toBe(200);
    const list = await json<RecordImportList>(await webCall(app, user, "/api/health/records/imports"));
    expect(list.imports).toEqual([]);
  });
});
