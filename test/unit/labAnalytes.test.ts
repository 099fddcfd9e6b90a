import { describe, expect, test } from "bun:test";
import {
  ANALYTES,
  convertValue,
  findAnalyte,
  foldName,
  resolveAnalyte,
  ucumUnit,
  unitFactor,
} from "../../shared/labs/analytes";

const analyte = (name: string) => {
  const found = findAnalyte(name);
  if (!found) throw new Error(`no analyte "${name}"`);
  return found;
};

describe("the analyte table", () => {
  test("has at least 100 analytes with unique LOINC codes", () => {
    expect(ANALYTES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(ANALYTES.map((entry) => entry.code)).size).toBe(ANALYTES.length);
    for (const entry of ANALYTES) expect(entry.code).toMatch(/^\d{1,6}-\d$/);
  });

  test("no folded name or synonym belongs to two analytes, or twice to one", () => {
    const owners = new Map<string, string>();
    const clashes: string[] = [];
    for (const entry of ANALYTES) {
      for (const name of [entry.name, ...entry.synonyms]) {
        const key = foldName(name);
        if (owners.has(key)) clashes.push(`${name} (${entry.code} and ${owners.get(key)})`);
        owners.set(key, entry.code);
      }
    }
    expect(clashes).toEqual([]);
  });

  test("every unit is canonical UCUM and every reported unit converts to the canonical one", () => {
    for (const entry of ANALYTES) {
      expect(ucumUnit(entry.unit)).toBe(entry.unit);
      for (const reported of entry.units) {
        expect(ucumUnit(reported.unit)).toBe(reported.unit);
        // The table's factor is what unit algebra gives (molar mass, valence), unless it is a convention.
        if (reported.curated || reported.offset !== undefined) continue;
        const algebra = unitFactor(reported.unit, entry.unit, entry.molarMass, entry.valence);
        expect(algebra, `${entry.name}: ${reported.unit} → ${entry.unit}`).toBeDefined();
        expect(Math.abs((algebra as number) / reported.scale - 1)).toBeLessThan(1e-3);
        expect(convertValue(entry, 1, reported.unit, entry.unit)).toBeCloseTo(reported.scale, 9);
      }
    }
  });
});

describe("findAnalyte", () => {
  test.each([
    ["Hemoglobin", "718-7"],
    ["Haemoglobin", "718-7"],
    ["Hb", "718-7"],
    ["HGB", "718-7"],
    ["HbA1c", "4548-4"],
    ["Hb A1c", "4548-4"],
    ["hemoglobin a1c", "4548-4"],
    ["Glycated haemoglobin", "4548-4"],
    ["LDL", "13457-7"],
    ["LDL cholesterol", "13457-7"],
    ["LDL-C", "13457-7"],
    ["TSH", "3016-3"],
    ["Creatinine", "2160-0"],
    ["eGFR", "33914-3"],
    ["ALT", "1742-6"],
    ["SGPT", "1742-6"],
    ["γ-GT", "2324-2"],
    ["25(OH)D", "62292-8"],
  ])("%s → %s", (name, code) => {
    expect(analyte(name).code).toBe(code);
  });

  test("by LOINC code, with or without a LOINC prefix", () => {
    expect(analyte("2345-7").name).toBe("Glucose");
    expect(analyte("LOINC 2093-3").name).toBe("Total cholesterol");
  });

  test("specimen words and bracketed notes around a printed name are ignored", () => {
    expect(analyte("Creatinine, serum").code).toBe("2160-0");
    expect(analyte("S. Creatinine").code).toBe("2160-0");
    expect(analyte("Hemoglobin (HGB)").code).toBe("718-7");
    expect(analyte("Glucose, fasting").code).toBe("1558-6");
    expect(analyte("Cholesterol, HDL").code).toBe("2085-9");
  });

  test("unknown names are undefined", () => {
    expect(findAnalyte("Unobtainium")).toBeUndefined();
    expect(findAnalyte("")).toBeUndefined();
  });

  test("a differential count is told from its percentage by the unit", () => {
    expect(resolveAnalyte("Neutrophils", "%")?.code).toBe("770-8");
    expect(resolveAnalyte("Neutrophils", "x10^9/L")?.code).toBe("751-8");
    expect(resolveAnalyte("Lymphocytes %", "10^3/uL")?.code).toBe("731-0");
    expect(resolveAnalyte("Lymphocytes")?.code).toBe("731-0");
  });
});

describe("ucumUnit", () => {
  test.each([
    ["mg/dL", "mg/dL"],
    ["mg/dl", "mg/dL"],
    ["MG/DL", "mg/dL"],
    ["g/dL", "g/dL"],
    ["g/l", "g/L"],
    ["mmol/L", "mmol/L"],
    ["mmol/l", "mmol/L"],
    ["µmol/L", "umol/L"],
    ["μmol/l", "umol/L"],
    ["umol/L", "umol/L"],
    ["x10^9/L", "10*9/L"],
    ["x 10^9/L", "10*9/L"],
    ["10*9/L", "10*9/L"],
    ["10⁹/L", "10*9/L"],
    ["×10³/µL", "10*3/uL"],
    ["K/uL", "10*3/uL"],
    ["cells/mm3", "/uL"],
    ["G/L", "10*9/L"],
    ["%", "%"],
    ["% (NGSP)", "%"],
    ["mmol/mol (IFCC)", "mmol/mol"],
    ["mIU/L", "m[IU]/L"],
    ["uIU/mL", "u[IU]/mL"],
    ["µIU/mL", "u[IU]/mL"],
    ["IU/L", "[IU]/L"],
    ["U/L", "U/L"],
    ["mEq/L", "meq/L"],
    ["mcg/dL", "ug/dL"],
    ["fl", "fL"],
    ["mm/hr", "mm/h"],
    ["sec", "s"],
    ["mmHg", "mm[Hg]"],
    ["mL/min/1.73m²", "mL/min/{1.73_m2}"],
    ["mg/24h", "mg/(24.h)"],
    ["ng/mL FEU", "ng/mL{FEU}"],
    ["mg/g creat", "mg/g{creat}"],
    ["mOsm/kg", "mosm/kg"],
  ])("%s → %s", (printed, ucum) => {
    expect(ucumUnit(printed)).toBe(ucum);
  });

  test.each(["", "Negative", "/hpf", "mg/dL something", "furlongs"])("%p is unknown", (printed) => {
    expect(ucumUnit(printed)).toBeUndefined();
  });
});

describe("convertValue", () => {
  // Reference values as laboratories print them, compared at the precision they are printed with.
  test.each([
    ["Glucose", 100, "mg/dL", "mmol/L", 5.55, 2],
    ["Total cholesterol", 200, "mg/dL", "mmol/L", 5.17, 2],
    ["HDL cholesterol", 40, "mg/dL", "mmol/L", 1.03, 2],
    ["LDL", 130, "mg/dL", "mmol/L", 3.36, 2],
    ["Creatinine", 1.0, "mg/dL", "µmol/L", 88.4, 1],
    ["Hemoglobin", 13.5, "g/dL", "g/L", 135, 9],
    ["HbA1c", 6.5, "%", "mmol/mol", 48, 0],
    ["HbA1c", 53, "mmol/mol", "%", 7.0, 1],
    ["Triglycerides", 150, "mg/dL", "mmol/L", 1.69, 2],
    ["Calcium", 10, "mg/dL", "mmol/L", 2.5, 1],
    ["Bilirubin", 1, "mg/dL", "umol/L", 17.1, 1],
    ["Uric acid", 6, "mg/dL", "umol/L", 356.9, 1],
    ["BUN", 14, "mg/dL", "mmol/L", 5.0, 1],
    ["Vitamin D", 30, "ng/mL", "nmol/L", 74.9, 1],
    ["Vitamin B12", 400, "pg/mL", "pmol/L", 295.1, 1],
    ["Free T4", 1.2, "ng/dL", "pmol/L", 15.4, 1],
    ["Sodium", 140, "mEq/L", "mmol/L", 140, 9],
    ["Magnesium", 2, "mg/dL", "mmol/L", 0.82, 2],
    ["TSH", 2.5, "uIU/mL", "mIU/L", 2.5, 9],
    ["WBC", 7500, "cells/uL", "x10^9/L", 7.5, 9],
    ["Hematocrit", 0.42, "L/L", "%", 42, 9],
    ["CRP", 12, "mg/L", "mg/dL", 1.2, 9],
    ["Albumin/creatinine ratio", 30, "mg/g", "mg/mmol", 3.4, 1],
  ])("%s: %d %s in %s ≈ %d", (name, value, from, to, expected, digits) => {
    expect(convertValue(analyte(name), value, from, to)).toBeCloseTo(expected, digits);
  });

  test("round trips return the value", () => {
    for (const [name, from, to] of [
      ["Glucose", "mg/dL", "mmol/L"],
      ["HbA1c", "%", "mmol/mol"],
      ["Creatinine", "umol/L", "mg/dL"],
      ["Hemoglobin", "g/dL", "mmol/L"],
    ] as const) {
      const there = convertValue(analyte(name), 7.3, from, to) as number;
      expect(convertValue(analyte(name), there, to, from)).toBeCloseTo(7.3, 9);
    }
  });

  test("the same unit, however printed, returns the value", () => {
    expect(convertValue(analyte("Glucose"), 98, "mg/dL", "mg/dL")).toBe(98);
    expect(convertValue(analyte("Glucose"), 98, "mg/dl", "mg/dL")).toBe(98);
    expect(convertValue(undefined, 98, "mmol/l", "mmol/L")).toBe(98);
  });

  test("a molar conversion needs the analyte; unrelated units have none", () => {
    expect(convertValue(undefined, 100, "mg/dL", "mmol/L")).toBeUndefined();
    expect(convertValue(undefined, 13.5, "g/dL", "g/L")).toBeCloseTo(135, 9);
    expect(convertValue(undefined, 6.5, "%", "mmol/mol")).toBeUndefined();
    expect(convertValue(analyte("Glucose"), 100, "mg/dL", "U/L")).toBeUndefined();
    expect(convertValue(analyte("TSH"), 2, "mIU/L", "furlongs")).toBeUndefined();
  });

  test("an analyte given only by code and unit still converts", () => {
    const plain = { code: "2345-7", name: "Glucose", synonyms: [], unit: "mg/dL" };
    expect(convertValue(plain, 5.55, "mmol/L", "mg/dL")).toBeCloseTo(100, 0);
  });

  test("unitFactor converts between prefixes and counts", () => {
    expect(unitFactor("10*3/uL", "10*9/L")).toBe(1);
    expect(unitFactor("ng/mL", "ng/L")).toBeCloseTo(1000, 9);
    expect(unitFactor("U/L", "ukat/L")).toBeCloseTo(1 / 60, 12);
    expect(unitFactor("kPa", "mm[Hg]")).toBeCloseTo(7.50062, 4);
  });
});
