import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { readHealthRecord } from "../../../shared/healthRecords/read";
import type { HealthProfile, RecordImport, RecordImportList, RecordUndo } from "../../../shared/healthRecords/schemas";
import type { LabPanelList } from "../../../shared/labs/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../../helpers/healthRecordSamples";
import { call, errorOf, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { uploadRecord as uploadRecordFile } from "../../helpers/records";

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

const uploadRecord = (account: TestAccount, text: string, contentType = "application/json", filename = "record.json") =>
  uploadRecordFile(app, account.apiKey, text, { contentType, filename });

const importFile = (account: TestAccount, fileId: string, proceed?: boolean) =>
  call(app, IMPORT, {
    method: "POST",
    key: account.apiKey,
    body: { file_id: fileId, ...(proceed ? { proceed } : {}) },
  });

async function imported(response: Response, status = 201): Promise<RecordImport> {
  if (response.status !== status) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  return json<RecordImport>(response);
}

const profileOf = async (account: TestAccount) =>
  json<HealthProfile>(await call(app, "/api/v1/health/profile", { key: account.apiKey }));

describe("importing a Synthea patient (FHIR R4)", () => {
  const text = readSample(SYNTHEA_BUNDLES.johnnie);
  const expected = readHealthRecord(text, "johnnie.json");

  test("keeps what the file holds, fills the profile, and undo removes all of it", async () => {
    const owner = await healthAccount(deps, app);
    const fileId = await uploadRecord(owner, text, "application/fhir+json", "johnnie.json");
    const summary = await imported(await importFile(owner, fileId));
    expect(summary).toMatchObject({
      fileId,
      filename: "johnnie.json",
      format: "fhir",
      kept: expected.summary.kept,
      skipped: expected.summary.skipped,
    });
    expect(summary.patient.name).toContain("Johnnie679");
    expect(summary.labPanels).toBeGreaterThan(0);

    const profile = await profileOf(owner);
    const activeConditions = new Set(expected.conditions.filter((c) => c.active).map((c) => c.name));
    expect(new Set(profile.importedConditions.map((c) => c.name))).toEqual(activeConditions);
    for (const condition of profile.importedConditions) {
      expect(condition.importId).toBe(summary.id);
      expect(condition.source).toMatchObject({ file: "johnnie.json", resourceType: "Condition" });
    }
    expect(profile.immunizations.length).toBeGreaterThan(0);

    // The same result arriving twice (another upload of the same bytes) is the same import.
    const again = await uploadRecord(owner, text, "application/json", "copy.json");
    const repeat = await imported(await importFile(owner, again), 200);
    expect(repeat.id).toBe(summary.id);

    const panels = await json<LabPanelList>(await call(app, "/api/v1/health/labs?limit=100", { key: owner.apiKey }));
    expect(panels.panels.length).toBeGreaterThan(0);

    const undo = await json<RecordUndo>(
      await call(app, `${IMPORTS}/${summary.id}`, { method: "DELETE", key: owner.apiKey }),
    );
    expect(undo.itemsDeleted).toBe(
      expected.conditions.length +
        expected.medications.length +
        expected.allergies.length +
        expected.immunizations.length,
    );
    expect(undo.labPanelsDeleted).toBe(summary.labPanels);
    const after = await profileOf(owner);
    expect(after.importedConditions).toEqual([]);
    expect(after.immunizations).toEqual([]);
    const left = await json<LabPanelList>(await call(app, "/api/v1/health/labs?limit=100", { key: owner.apiKey }));
    expect(left.panels).toEqual([]);
    const list = await json<RecordImportList>(await call(app, IMPORTS, { key: owner.apiKey }));
    expect(list.imports).toEqual([]);
  });
});

describe("a C-CDA document", () => {
  test("HL7's CCD sample: allergies reach the profile's allergy section", async () => {
    const owner = await healthAccount(deps, app);
    const xml = readSample(CCDA_DOCUMENTS.hl7Ccd);
    const expected = readHealthRecord(xml, "ccd.xml");
    const summary = await imported(
      await importFile(owner, await uploadRecord(owner, xml, "application/xml", "ccd.xml")),
    );
    expect(summary.format).toBe("ccda");
    expect(summary.kept).toEqual(expected.summary.kept);
    const profile = await profileOf(owner);
    expect(profile.allergies.map((a) => a.substance).sort()).toEqual(
      expected.allergies
        .filter((a) => !["inactive", "resolved"].includes(a.clinicalStatus ?? ""))
        .map((a) => a.substance)
        .sort(),
    );
  });
});

describe("every real sample through the API", () => {
  const samples = [
    ...Object.entries(SYNTHEA_BUNDLES)
      .filter(([name]) => name !== "condition")
      .map(([name, path]) => [name, path, "application/fhir+json"] as const),
    ...Object.entries(CCDA_DOCUMENTS)
      .filter(([name]) => name !== "hl7Dir")
      .map(([name, path]) => [name, path, "text/xml"] as const),
  ];
  for (const [name, path, type] of samples) {
    test(`${name}: stores what the reader keeps, each item with its source`, async () => {
      const owner = await healthAccount(deps, app);
      const text = readSample(path);
      const expected = readHealthRecord(text, name);
      const summary = await imported(await importFile(owner, await uploadRecord(owner, text, type, name)));
      expect(summary.kept).toEqual(expected.summary.kept);
      expect(summary.skipped).toEqual(expected.summary.skipped);
      const items = await deps.sql<{ kind: string; item: { source: { file: string; resourceId: string } } }[]>`
        select kind, item from health_record_items where import_id = ${summary.id}`;
      const kept = expected.summary.kept;
      expect(items.length).toBe(kept.conditions + kept.medications + kept.allergies + kept.immunizations);
      for (const { item } of items) {
        expect(item.source.file).toBe(name);
        expect(item.source.resourceId).not.toBe("");
      }
      const [labs] = await deps.sql<{ results: number }[]>`
        select coalesce(sum(jsonb_array_length(results)), 0)::int as results from lab_panels
        where record_import_id = ${summary.id}`;
      expect((labs?.results ?? 0) + summary.labResultsAlreadyStored).toBe(kept.labResults);
    });
  }

  test("HL7's Diagnostic Imaging Report, which the converter cannot read: 422", async () => {
    const owner = await healthAccount(deps, app);
    const response = await importFile(
      owner,
      await uploadRecord(owner, readSample(CCDA_DOCUMENTS.hl7Dir), "application/xml", "dir.xml"),
    );
    expect(response.status).toBe(422);
    expect((await errorOf(response)).code).toBe("RECORD_NOT_READABLE");
  });
});

describe("refusals", () => {
  test("another patient than earlier imports: 409 naming both, nothing stored; proceed keeps it", async () => {
    const owner = await healthAccount(deps, app);
    await imported(await importFile(owner, await uploadRecord(owner, readSample(SYNTHEA_BUNDLES.johnnie))));
    const luna = await uploadRecord(owner, readSample(SYNTHEA_BUNDLES.luna));
    const refused = await importFile(owner, luna);
    expect(refused.status).toBe(409);
    const error = await errorOf(refused);
    expect(error.code).toBe("RECORD_OTHER_PATIENT");
    expect(error.details).toHaveLength(2);
    const message = error.message;
    expect(message).toContain("Luna60");
    expect(message).toContain("Johnnie679");
    expect((await json<RecordImportList>(await call(app, IMPORTS, { key: owner.apiKey }))).imports).toHaveLength(1);
    const kept = await imported(await importFile(owner, luna, true));
    expect(kept.patient.name).toContain("Luna60");
  });

  test("a file that is neither format: 422 RECORD_NOT_READABLE", async () => {
    const owner = await healthAccount(deps, app);
    const fileId = await uploadRecord(owner, "just some notes", "text/plain", "notes.txt");
    const response = await importFile(owner, fileId);
    expect(response.status).toBe(422);
    expect((await errorOf(response)).code).toBe("RECORD_NOT_READABLE");
  });

  test("another account's file is 404; without consent 403", async () => {
    const owner = await healthAccount(deps, app);
    const other = await healthAccount(deps, app);
    const fileId = await uploadRecord(owner, readSample(SYNTHEA_BUNDLES.luna));
    expect((await importFile(other, fileId)).status).toBe(404);
    const unconsented = await healthAccount(deps, app, { consent: false });
    const response = await importFile(unconsented, fileId);
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
  });
});
