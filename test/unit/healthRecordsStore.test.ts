import { describe, expect, test } from "bun:test";
import { describePatient, differentPatients } from "../../shared/healthRecords/patients";
import type { ImportedRecord } from "../../shared/healthRecords/schemas";
import { recordLabResults } from "../../shared/healthRecords/storedItems";
import { sameResultKey } from "../../shared/labs/recordPanels";

describe("whether two records are about different people", () => {
  const jane = { name: "Jane Doe", birthDate: "1980-02-01" };
  test("the same person written differently is the same", () => {
    expect(differentPatients(jane, { name: "JANE  doe", birthDate: "1980-02-01" })).toBe(false);
    expect(differentPatients(jane, { name: "Jane Mary Doe", birthDate: "1980-02-01T00:00:00Z" })).toBe(false);
    expect(
      differentPatients({ name: "José Martínez", birthDate: null }, { name: "jose martinez", birthDate: null }),
    ).toBe(false);
  });
  test("another birth date or another name is another person", () => {
    expect(differentPatients(jane, { name: "Jane Doe", birthDate: "1981-02-01" })).toBe(true);
    expect(differentPatients(jane, { name: "John Doe", birthDate: "1980-02-01" })).toBe(true);
  });
  test("a record that names no one is never a mismatch", () => {
    expect(differentPatients(jane, { name: null, birthDate: null })).toBe(false);
    expect(differentPatients({ name: null, birthDate: "1980-02-01" }, { name: "Anyone", birthDate: null })).toBe(false);
  });
  test("described with what the record gives", () => {
    expect(describePatient(jane)).toBe("Jane Doe (born 1980-02-01)");
    expect(describePatient({ name: null, birthDate: null })).toBe("an unnamed patient");
  });
});

describe("what makes two lab results the same result", () => {
  const day = 20_000;
  const glucose = { name: "Glucose", code: "2345-7", value: 5.5, valueText: "5.5", unit: "mmol/L", day };
  test("the same analyte, day and value, in another unit or under another name", () => {
    const inMgdl = { ...glucose, name: "Glucose [Mass/volume] in Serum or Plasma", value: 99.1, unit: "mg/dL" };
    expect(sameResultKey(inMgdl)).toBe(sameResultKey(glucose));
    expect(sameResultKey({ ...glucose, code: null, name: "GLU" })).toBe(sameResultKey(glucose));
  });
  test("another day or another value is another result", () => {
    expect(sameResultKey({ ...glucose, day: day + 1 })).not.toBe(sameResultKey(glucose));
    expect(sameResultKey({ ...glucose, value: 5.6, valueText: "5.6" })).not.toBe(sameResultKey(glucose));
  });
  test("text results compare as text, unknown tests by name", () => {
    const text = { name: "Urine culture", code: null, value: null, valueText: "No growth", unit: null, day };
    expect(sameResultKey({ ...text, valueText: "no growth " })).toBe(sameResultKey(text));
    expect(sameResultKey({ ...text, valueText: "E. coli" })).not.toBe(sameResultKey(text));
  });
});

describe("lab results as panels take them", () => {
  const record = (effective?: string): ImportedRecord =>
    ({
      labResults: [
        {
          name: "Hemoglobin",
          value: 13.1,
          unit: "g/dL",
          ...(effective ? { effective } : {}),
          source: { resourceType: "Observation", resourceId: "1" },
        },
      ],
    }) as unknown as ImportedRecord;
  const fallback = new Date("2026-01-01T10:00:00Z");
  test("a date-time keeps its instant; a date alone is midnight UTC; none is the fallback", () => {
    expect(recordLabResults(record("2014-08-28T12:18:29-04:00"), fallback)[0]?.collectedAt.toISOString()).toBe(
      "2014-08-28T16:18:29.000Z",
    );
    expect(recordLabResults(record("2014-08"), fallback)[0]?.collectedAt.toISOString()).toBe(
      "2014-08-01T00:00:00.000Z",
    );
    expect(recordLabResults(record(), fallback)[0]?.collectedAt).toEqual(fallback);
    expect(recordLabResults(record("not a date"), fallback)[0]?.collectedAt).toEqual(fallback);
  });
});
