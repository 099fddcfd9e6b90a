import { beforeAll, describe, expect, test } from "bun:test";
import type { Bundle, DiagnosticReport, Observation, Resource } from "@medplum/fhirtypes";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { findAnalyte } from "../../../shared/labs/analytes";
import type { LabFlag, LabPanel } from "../../../shared/labs/schemas";
import { parseCsv } from "../../helpers/csv";
import { fhirProblems, loincCheckDigitOk } from "../../helpers/fhir";
import { healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

const LABS = "/api/v1/health/labs";
const INTERPRETATION = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation";
const COLUMNS = "panelId,collectedAt,lab,name,code,value,valueText,unit,rangeLow,rangeHigh,rangeText,flag".split(",");

async function createPanel(key: string, body: Record<string, unknown>): Promise<LabPanel> {
  const response = await call(app, LABS, { method: "POST", key, body });
  if (response.status !== 201) throw new Error(`panel create failed: ${response.status} ${await response.text()}`);
  return json<LabPanel>(response);
}

const exportOf = (key: string, format: string) => call(app, `${LABS}/export?format=${format}`, { key });

async function csvOf(key: string): Promise<Record<string, string>[]> {
  const response = await exportOf(key, "csv");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="lab-results-[\d-]{10}\.csv"$/);
  const [header, ...rows] = parseCsv(await response.text());
  expect(header).toEqual(COLUMNS);
  return rows.map((cells) => Object.fromEntries(COLUMNS.map((column, i) => [column, cells[i] as string])));
}

async function bundleOf(key: string): Promise<Bundle> {
  const response = await exportOf(key, "fhir");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")?.split(";")[0]).toBe("application/fhir+json");
  expect(response.headers.get("content-disposition")).toMatch(/filename="lab-results-[\d-]{10}\.fhir\.json"$/);
  return json<Bundle>(response);
}

function resourceAt(bundle: Bundle, index: number): Resource {
  const resource = bundle.entry?.[index]?.resource;
  if (!resource) throw new Error(`no entry ${index}`);
  return resource;
}

/** The Bundle and every resource in it are valid R4 (test/helpers/fhir.ts). */
function expectValid(bundle: Bundle): void {
  expect(fhirProblems(bundle)).toEqual([]);
  for (const entry of bundle.entry ?? []) expect(fhirProblems(entry.resource as Resource)).toEqual([]);
}

/** A one-result panel. */
const tsh = (collectedAt: string) => ({ collectedAt, results: [{ name: "TSH", value: 2 }] });

const PANEL = {
  collectedAt: "2026-03-04T08:15:00+01:00",
  lab: 'City Lab, "North"',
  results: [
    { name: "Hemoglobin", value: 11.2, unit: "g/dL", referenceRange: { low: 12, high: 15.5 } },
    { name: "Glucose", valueText: "95", unit: "mg/dL", referenceRange: { text: "70–99" } },
    { name: "LDL cholesterol", value: 180, unit: "mg/dL", referenceRange: { text: "< 130" } },
    { name: "WBC", value: 7.1, unit: "x10^9/L", referenceRange: { low: 4, high: 11 } },
    { name: "C-reactive protein", valueText: "<0.5", unit: "mg/L", referenceRange: { high: 5 } },
    { name: "Urine nitrite", valueText: "positive", flag: "abnormal", referenceRange: { text: "negative" } },
    { name: "=Base excess", valueText: "-2.5", unit: "mmol/L" },
  ],
};

describe("CSV", () => {
  test("one line per result, oldest panel first, every field as stored, quoted and formula-safe", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const newer = await createPanel(apiKey, PANEL);
    const older = await createPanel(apiKey, tsh("2025-12-01T07:00:00Z"));
    const rows = await csvOf(apiKey);
    const expected = [older, newer].flatMap((panel) =>
      panel.results.map((result) => ({
        panelId: panel.id,
        collectedAt: panel.collectedAt,
        lab: panel.lab ?? "",
        name: result.name.startsWith("=") ? `'${result.name}` : result.name,
        code: result.code ?? "",
        value: result.value === null ? "" : String(result.value),
        valueText: result.valueText,
        unit: result.unit ?? "",
        rangeLow: String(result.referenceRange.low ?? ""),
        rangeHigh: String(result.referenceRange.high ?? ""),
        rangeText: result.referenceRange.text ?? "",
        flag: result.flag ?? "",
      })),
    );
    expect(rows).toEqual(expected);
    expect(rows.map((row) => row.lab)).toContain('City Lab, "North"');
    expect(rows.find((row) => row.name === "'=Base excess")?.valueText).toBe("-2.5");
  });

  test("every panel, across the export's read batches of 100", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const times = Array.from({ length: 101 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString());
    for (const collectedAt of times.toReversed()) {
      await createPanel(apiKey, { collectedAt, results: [{ name: "Glucose", value: 5 }] });
    }
    expect((await csvOf(apiKey)).map((row) => row.collectedAt)).toEqual(times);
  });
});

describe("FHIR", () => {
  let panel: LabPanel;
  let bundle: Bundle;
  let observations: Observation[];
  const ucum = (unit: string, code: string) => ({ unit, system: "http://unitsofmeasure.org", code });

  beforeAll(async () => {
    const { apiKey } = await healthAccount(deps, app);
    panel = await createPanel(apiKey, PANEL);
    bundle = await bundleOf(apiKey);
    observations = (bundle.entry ?? []).slice(1).map((entry) => entry.resource as Observation);
  });

  test("a valid R4 collection Bundle: the panel's DiagnosticReport, then an Observation per result", () => {
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection" });
    expectValid(bundle);
    expect(observations).toHaveLength(PANEL.results.length);
    expect(bundle.entry?.[0]?.fullUrl).toBe(`urn:uuid:${panel.id}`);
    expect(resourceAt(bundle, 0)).toMatchObject({
      resourceType: "DiagnosticReport",
      status: "final",
      effectiveDateTime: panel.collectedAt,
      issued: panel.createdAt,
      performer: [{ display: panel.lab }],
      result: bundle.entry?.slice(1).map((entry) => ({ reference: entry.fullUrl })),
    });
    observations.forEach((observation, i) => {
      expect(observation).toMatchObject({ status: "final", effectiveDateTime: "2026-03-04T07:15:00.000Z" });
      expect(observation.category?.[0]?.coding?.[0]?.code).toBe("laboratory");
      expect(observation.code.text).toBe(panel.results[i]?.name as string);
    });
  });

  test("LOINC codes where the analyte is known, none otherwise", () => {
    observations.forEach((observation, i) => {
      const code = findAnalyte(panel.results[i]?.name as string)?.code;
      expect(observation.code.coding).toEqual(code ? [{ system: "http://loinc.org", code }] : undefined);
      if (code) expect(loincCheckDigitOk(code)).toBe(true);
    });
    expect(observations.filter((observation) => observation.code.coding).length).toBe(PANEL.results.length - 1);
    expect(observations[5]?.code).toEqual({ text: "Urine nitrite" });
  });

  test("values with UCUM units, bounds as comparators, text as valueString; ranges in the same unit", () => {
    const [hb, glucose, , wbc, crp, nitrite, base] = observations;
    expect(hb?.valueQuantity).toEqual({ value: 11.2, ...ucum("g/dL", "g/dL") });
    expect(hb?.referenceRange).toEqual([
      { low: { value: 12, ...ucum("g/dL", "g/dL") }, high: { value: 15.5, ...ucum("g/dL", "g/dL") } },
    ]);
    expect(wbc?.valueQuantity).toEqual({ value: 7.1, ...ucum("x10^9/L", "10*9/L") });
    expect(glucose?.referenceRange).toEqual([
      { low: { value: 70, ...ucum("mg/dL", "mg/dL") }, high: { value: 99, ...ucum("mg/dL", "mg/dL") }, text: "70–99" },
    ]);
    expect(crp?.valueQuantity).toEqual({ value: 0.5, comparator: "<", ...ucum("mg/L", "mg/L") });
    expect(nitrite).toMatchObject({ valueString: "positive", referenceRange: [{ text: "negative" }] });
    expect(base?.valueQuantity).toEqual({ value: -2.5, ...ucum("mmol/L", "mmol/L") });
    expect(base?.referenceRange).toBeUndefined();
  });

  test("interpretation from the flag: L, N, H, A; none without a flag", () => {
    const codes = observations.map((observation) => observation.interpretation?.[0]?.coding?.[0]?.code);
    expect(codes).toEqual(["L", "N", "H", "N", undefined, "A", undefined]);
    const flags: (LabFlag | null)[] = ["low", "normal", "high", "normal", null, "abnormal", null];
    expect(panel.results.map((result) => result.flag)).toEqual(flags);
  });

  test("exporting again gives the same fullUrls; each panel's report lists only its own results", async () => {
    const { apiKey } = await healthAccount(deps, app);
    await createPanel(apiKey, PANEL);
    await createPanel(apiKey, tsh("2026-01-02T00:00:00Z"));
    const [first, second] = [await bundleOf(apiKey), await bundleOf(apiKey)];
    expectValid(first);
    const urls = (bundle: Bundle) => bundle.entry?.map((entry) => entry.fullUrl);
    expect(urls(second)).toEqual(urls(first));
    expect(new Set(urls(first)).size).toBe(PANEL.results.length + 3);
    const reports = first.entry?.filter((entry) => entry.resource?.resourceType === "DiagnosticReport") ?? [];
    expect(reports.map((entry) => (entry.resource as DiagnosticReport).result?.length)).toEqual([
      1,
      PANEL.results.length,
    ]);
  });

  test("the checks can fail: planted errors in an Observation and a Bundle are each found", async () => {
    const { apiKey } = await healthAccount(deps, app);
    await createPanel(apiKey, PANEL);
    const bundle = await bundleOf(apiKey);
    const good = resourceAt(bundle, 1) as Observation;
    expect(fhirProblems(good)).toEqual([]);
    const coding = (system: string, code: string) => ({ coding: [{ system, code }] });
    const broken: [Record<string, unknown>, string][] = [
      [{ status: undefined }, "Observation.status: Missing required property"],
      [{ status: "done" }, '"done" is not in http://hl7.org/fhir/ValueSet/observation-status'],
      [{ effectiveDateTime: "4 March 2026" }, "Invalid dateTime format"],
      [{ referenceRange: [{}] }, "Constraint obs-3 not met"],
      [{ valueString: "11.2" }, "Conflicting choice of type properties"],
      [{ code: coding("http://loinc.org", "718-8") }, "718-8 is not a LOINC code"],
      [{ valueQuantity: { value: 11.2, system: "http://unitsofmeasure.org", code: "g/dLL" } }, "g/dLL is not UCUM"],
      [{ interpretation: [coding(INTERPRETATION, "HIGH")] }, "HIGH is not a code of"],
      [
        { category: [coding("http://terminology.hl7.org/CodeSystem/observation-category", "lab")] },
        "lab is not a code",
      ],
      [{ performer: [{ display: 42 }] }, "expected string, but got number"],
    ];
    for (const [change, problem] of broken) {
      expect(fhirProblems({ ...good, ...change } as Observation).join("\n")).toContain(problem);
    }
    const planted = structuredClone(bundle);
    delete (resourceAt(planted, 1) as Partial<Observation>).status;
    expect(fhirProblems(planted).join("\n")).toContain("Bundle.entry[1].resource.status");
    const dangling = structuredClone(bundle);
    const report = resourceAt(dangling, 0) as DiagnosticReport;
    report.result = [...(report.result ?? []), { reference: "urn:uuid:00000000-0000-4000-8000-000000000000" }];
    expect(fhirProblems(dangling)).toEqual([`entry[0].result: ${report.result.at(-1)?.reference} is no Observation`]);
  });
});

describe("who sees what", () => {
  test("no panels: a header-only CSV and a Bundle without entries, still valid", async () => {
    const { apiKey } = await healthAccount(deps, app);
    expect(await csvOf(apiKey)).toEqual([]);
    const bundle = await bundleOf(apiKey);
    expect(bundle.entry).toBeUndefined();
    expectValid(bundle);
  });

  test("another account's panels never appear", async () => {
    const a = await healthAccount(deps, app);
    const b = await healthAccount(deps, app);
    const panelA = await createPanel(a.apiKey, PANEL);
    const panelB = await createPanel(b.apiKey, tsh("2026-02-01T00:00:00Z"));
    expect(new Set((await csvOf(b.apiKey)).map((row) => row.panelId))).toEqual(new Set([panelB.id]));
    const text = JSON.stringify(await bundleOf(b.apiKey));
    expect(text).not.toContain(panelA.id);
    expect(text).not.toContain("Hemoglobin");
  });

  test("without consent 403 CONSENT_REQUIRED; a missing or unknown format is 400", async () => {
    const { apiKey } = await healthAccount(deps, app, { consent: false });
    for (const format of ["csv", "fhir"]) {
      const response = await exportOf(apiKey, format);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
    }
    const consenting = await healthAccount(deps, app);
    for (const path of [`${LABS}/export`, `${LABS}/export?format=json`]) {
      const response = await call(app, path, { key: consenting.apiKey });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
  });

  test("/openapi.json documents both media types of the file, and the consent failure", async () => {
    type Op = { responses: Record<string, { content?: Record<string, unknown> }> };
    const doc = await json<{ paths: Record<string, { get: Op }> }>(await call(app, "/openapi.json"));
    for (const path of [`${LABS}/export`, "/api/health/labs/export"]) {
      const responses = doc.paths[path]?.get.responses ?? {};
      expect(Object.keys(responses["200"]?.content ?? {}).sort()).toEqual(["application/fhir+json", "text/csv"]);
      expect(JSON.stringify(responses["403"])).toContain("CONSENT_REQUIRED");
    }
  });

  test("the website's mirror exports with the session", async () => {
    const user = await webUser(app, deps, { plan: "go" });
    const body = { consentGiven: true, conditions: [], medications: [] };
    expect((await webCall(app, user, "/api/health/profile", { method: "POST", body })).status).toBe(200);
    expect((await webCall(app, user, "/api/health/labs", { method: "POST", body: PANEL })).status).toBe(201);
    const response = await webCall(app, user, "/api/health/labs/export?format=fhir");
    expect(response.status).toBe(200);
    expectValid(await json<Bundle>(response));
  });
});
