/**
 * FHIR R4 bundles read into the service's shapes, on two real Synthea patients from
 * cql-exec-fhir@2.2.0 (Apache-2.0, test/fixtures/r4/), read from node_modules (test/helpers/healthRecordSamples.ts).
 * Counts are taken from each file's raw JSON here, independently of the reader.
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "../../shared/core/errors";
import { readFhirBundle } from "../../shared/healthRecords/fhir";
import { ImportedRecordSchema } from "../../shared/healthRecords/schemas";
import { readSample, SYNTHEA_BUNDLES } from "../helpers/healthRecordSamples";

type Raw = { resourceType: string; category?: { coding?: { code?: string }[] }[]; valueQuantity?: unknown };

/** What the file holds, counted from its entries: the kinds the reader keeps and every other type. */
function rawCounts(bundle: { entry: { resource: Raw }[] }) {
  const resources = bundle.entry.map((entry) => entry.resource);
  const of = (...types: string[]) => resources.filter((resource) => types.includes(resource.resourceType)).length;
  const isLab = (resource: Raw) =>
    resource.resourceType === "Observation" &&
    (resource.category ?? []).some((category) => category.coding?.some((coding) => coding.code === "laboratory"));
  const labs = resources.filter(isLab).filter((resource) => resource.valueQuantity !== undefined).length;
  return {
    kept: {
      conditions: of("Condition"),
      medications: of("MedicationRequest", "MedicationStatement"),
      allergies: of("AllergyIntolerance"),
      labResults: labs,
      immunizations: of("Immunization"),
    },
    skippedTotal:
      resources.length -
      of("Condition", "MedicationRequest", "MedicationStatement", "AllergyIntolerance", "Immunization") -
      labs,
    observations: of("Observation"),
    encounters: of("Encounter"),
  };
}

const load = (path: string) => JSON.parse(readSample(path));

describe("readFhirBundle on Synthea patients", () => {
  for (const [name, path] of Object.entries({ johnnie: SYNTHEA_BUNDLES.johnnie, luna: SYNTHEA_BUNDLES.luna })) {
    test(`${name}: kept counts per kind and skipped counts per type match the file's own entries`, () => {
      const json = load(path);
      const raw = rawCounts(json);
      const record = readFhirBundle(json, "patient.json");
      expect(Value.Check(ImportedRecordSchema, record)).toBe(true);
      expect(record.summary.kept).toEqual(raw.kept);
      const skipped = Object.values(record.summary.skipped).reduce((sum, count) => sum + count, 0);
      expect(skipped).toBe(raw.skippedTotal);
      expect(record.summary.skipped.Observation).toBe(raw.observations - raw.kept.labResults);
      expect(record.summary.skipped.Encounter).toBe(raw.encounters);
      expect(record.summary.skipped.Condition).toBeUndefined();
      expect(record.conditions.every((condition) => condition.source.file === "patient.json")).toBe(true);
    });
  }

  test("both bundles are Synthea's own output: its life-years extensions on the Patient, urn:uuid entries", () => {
    for (const path of [SYNTHEA_BUNDLES.johnnie, SYNTHEA_BUNDLES.luna]) {
      const json = load(path) as {
        type: string;
        entry: { fullUrl: string; resource: Raw & { extension?: { url: string }[] } }[];
      };
      expect(json.type).toBe("transaction");
      expect(json.entry.every((entry) => entry.fullUrl.startsWith("urn:uuid:"))).toBe(true);
      const patient = json.entry.find((entry) => entry.resource.resourceType === "Patient")?.resource;
      expect(patient?.extension?.map((extension) => extension.url)).toEqual(
        expect.arrayContaining([
          "http://synthetichealth.github.io/synthea/disability-adjusted-life-years",
          "http://synthetichealth.github.io/synthea/quality-adjusted-life-years",
        ]),
      );
    }
  });

  test("Johnnie679: patient, a condition, a medication, a lab result and an immunization as the file gives them", () => {
    const record = readFhirBundle(load(SYNTHEA_BUNDLES.johnnie));
    expect(record.summary.format).toBe("fhir");
    expect(record.summary.patient).toEqual({ name: "Johnnie679 Hermiston71", birthDate: "2009-03-20" });
    expect(record.summary.problems).toEqual([]);
    const sinusitis = record.conditions.find((condition) => condition.codes[0]?.code === "36971009");
    expect(sinusitis).toMatchObject({
      name: "Sinusitis (disorder)",
      clinicalStatus: "resolved",
      active: false,
      onset: "2012-10-07T05:04:09-04:00",
      source: { resourceType: "Condition", resourceId: "9149aa8f-65cb-4fdc-8603-45d591a27351" },
    });
    expect(record.medications.find((medication) => medication.rxnorm === "562251")).toMatchObject({
      name: "Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet",
      status: "stopped",
      active: false,
    });
    expect(record.labResults.find((lab) => lab.source.resourceId === "adc87913-0542-42e2-ac24-c714b56b3785")).toEqual({
      name: "Leukocytes [#/volume] in Blood by Automated count",
      loinc: "6690-2",
      value: 4.61583444756669,
      unit: "10*3/uL",
      effective: "2015-03-06T04:04:09-05:00",
      analyte: "6690-2",
      source: {
        resourceType: "Observation",
        resourceId: "adc87913-0542-42e2-ac24-c714b56b3785",
        date: "2015-03-06T04:04:09-05:00",
      },
    });
    expect(
      record.immunizations.find((shot) => shot.source.resourceId === "c8bc64ff-d757-43ef-a640-26eb0aca1400"),
    ).toMatchObject({
      vaccine: "Hib (PRP-OMP)",
      cvx: "49",
      date: "2009-06-26T05:04:09-04:00",
      status: "completed",
    });
  });

  test("Luna60: a Condition whose category is an object (not R4) is kept, and the problem reported", () => {
    const record = readFhirBundle(load(SYNTHEA_BUNDLES.luna));
    expect(record.summary.patient).toEqual({ name: "Luna60 McCullough561", birthDate: "2008-11-06" });
    expect(record.conditions.find((condition) => condition.codes[0]?.code === "444814009")?.name).toBe(
      "Viral sinusitis (disorder)",
    );
    expect(record.medications.find((medication) => medication.rxnorm === "198405")?.name).toBe(
      "Ibuprofen 100 MG Oral Tablet",
    );
    expect(record.immunizations.find((shot) => shot.cvx === "10")?.date).toBe("2009-07-16T12:18:29-04:00");
    expect(record.summary.problems).toEqual([
      {
        resourceType: "Condition",
        resourceId: "9934bc4f-58af-4ecf-bb70-b7cc31987fc5",
        kept: true,
        problems: ["category: Expected array of values for property"],
      },
    ]);
  });
});

describe("readFhirBundle: what it keeps, drops and refuses", () => {
  const bundle = (entry: unknown[], type = "collection") => ({ resourceType: "Bundle", type, entry });

  test("a resource whose read element fails validation is dropped, counted as skipped and reported", () => {
    const lab = {
      resourceType: "Observation",
      id: "o1",
      status: "final",
      category: [{ coding: [{ code: "laboratory" }] }],
      code: { text: "x" },
      valueQuantity: { value: 1 },
      effectiveDateTime: "2020-13-45",
    };
    const record = readFhirBundle(bundle([{ resource: lab }]));
    expect(record.labResults).toEqual([]);
    expect(record.summary.skipped).toEqual({ Observation: 1 });
    expect(record.summary.problems[0]).toMatchObject({ resourceId: "o1", kept: false });
  });

  test("active statuses, NUCC's CVX system normalised, allergy reactions and criticality", () => {
    const record = readFhirBundle(
      bundle(
        [
          {
            resource: {
              resourceType: "Condition",
              id: "c1",
              subject: { reference: "Patient/p" },
              code: { coding: [{ system: "http://hl7.org/fhir/sid/icd-10-cm", code: "E11.9" }] },
            },
          },
          {
            resource: {
              resourceType: "MedicationStatement",
              id: "m1",
              status: "active",
              subject: { reference: "Patient/p" },
              medicationCodeableConcept: { text: "Metformin" },
            },
          },
          {
            resource: {
              resourceType: "AllergyIntolerance",
              id: "a1",
              patient: { reference: "Patient/p" },
              criticality: "high",
              clinicalStatus: { coding: [{ code: "active" }] },
              code: { text: "Peanut" },
              reaction: [{ manifestation: [{ text: "Anaphylaxis" }] }],
            },
          },
          {
            resource: {
              resourceType: "Immunization",
              id: "i1",
              status: "completed",
              patient: { reference: "Patient/p" },
              occurrenceDateTime: "2021-04-01",
              vaccineCode: { coding: [{ system: "http://nucc.org/cvx", code: "208" }] },
            },
          },
        ],
        "searchset",
      ),
    );
    expect(record.conditions[0]).toMatchObject({ name: "E11.9", active: true });
    expect(record.medications[0]).toMatchObject({ name: "Metformin", active: true });
    expect(record.allergies[0]).toMatchObject({ substance: "Peanut", reactions: ["Anaphylaxis"], criticality: "high" });
    expect(record.immunizations[0]).toMatchObject({
      cvx: "208",
      codes: [{ system: "http://hl7.org/fhir/sid/cvx", code: "208" }],
    });
  });

  const refusals: [string, unknown][] = [
    ["a single Condition", { resourceType: "Condition" }],
    ["a history bundle", bundle([], "history")],
    ["an entry without a resource", bundle([{ fullUrl: "urn:uuid:1" }])],
    ["a Bundle whose timestamp is not an R4 instant", { ...bundle([]), timestamp: "yesterday" }],
  ];
  for (const [what, json] of refusals) {
    test(`refuses ${what} with RECORD_NOT_READABLE`, () => {
      expect(() => readFhirBundle(json)).toThrow(AppError);
      try {
        readFhirBundle(json);
      } catch (error) {
        expect((error as AppError).kind).toBe("RECORD_NOT_READABLE");
      }
    });
  }
});
