import { describe, expect, test } from "bun:test";
import { readCollectedAt, readDate, readLabName } from "../../shared/labs/extract/header";
import { parseLabReport } from "../../shared/labs/extract/index";

/** The one result a single line of report text yields, without its page. */
function one(line: string, header?: string) {
  const { results } = parseLabReport([[header, line].filter(Boolean).join("\n")]);
  expect(results).toHaveLength(1);
  const { page: _page, ...result } = results[0]!;
  return result;
}

describe("lab report lines", () => {
  test("one result per line: value, unit, range and the lab's flag", () => {
    expect(one("Hemoglobin 13.5 g/dL 12.0–15.5 L")).toEqual({
      name: "Hemoglobin",
      valueText: "13.5",
      value: 13.5,
      unit: "g/dL",
      referenceRange: { low: 12, high: 15.5, text: "12.0–15.5" },
      flag: "low",
    });
  });

  test("every printed range form gives its bounds and keeps its text", () => {
    const cases: [string, number | null, number | null, string][] = [
      ["Hemoglobin 13.5 g/dL 12.0 - 15.5", 12, 15.5, "12.0 - 15.5"],
      ["Potassium 4.2 mmol/L 3.5-5.0", 3.5, 5, "3.5-5.0"],
      ["Total cholesterol 190 mg/dL <200", null, 200, "<200"],
      ["eGFR 72 mL/min/1.73m2 >60", 60, null, ">60"],
      ["Sodium 139 mmol/L 135 to 145", 135, 145, "135 to 145"],
      ["Glucose: 5.4 mmol/L (Reference: 3.5–5.0)", 3.5, 5, "3.5–5.0"],
      ["Glucose 5.4 mmol/L Ref. range: 3.5 - 5.0", 3.5, 5, "3.5 - 5.0"],
    ];
    for (const [line, low, high, text] of cases) expect(one(line).referenceRange).toEqual({ low, high, text });
  });

  test("the flag is computed from a numeric range when none is printed", () => {
    expect(one("Glucose: 5.4 mmol/L (Reference: 3.5–5.0)").flag).toBe("high");
    expect(one("eGFR 58 mL/min/1.73m2 >60").flag).toBe("low");
    expect(one("Sodium 139 mmol/L 135–145").flag).toBe("normal");
    expect(one("Ferritin 40 µg/L").flag).toBeNull();
  });

  test("a printed flag wins over the range, and '*' takes its side from the range", () => {
    expect(one("Total cholesterol 200 HIGH mg/dL <200", "Test Result Flag Units Reference range").flag).toBe("high");
    expect(one("TSH 0.21 * mIU/L 0.40-4.00").flag).toBe("low");
    expect(one("Urine albumin Positive * Negative").flag).toBe("abnormal");
  });

  test("qualitative values: abnormal only when printed", () => {
    expect(one("Hepatitis C antibody Positive Negative")).toMatchObject({
      valueText: "Positive",
      value: null,
      flag: null,
    });
    expect(one("Hepatitis C antibody Reactive A Non-reactive").flag).toBe("abnormal");
    expect(one("SARS-CoV-2 RNA Not detected").referenceRange).toEqual({ low: null, high: null, text: null });
  });

  test("a censored value keeps its text and has no number", () => {
    expect(one("CRP <0.5 mg/L <5.0")).toMatchObject({ valueText: "<0.5", value: null, flag: null });
  });

  test("names it does not know are read, and Greek mu becomes the micro sign", () => {
    expect(one("Zonulin (stool) 45 ng/mL 20-50")).toMatchObject({ name: "Zonulin (stool)", flag: "normal" });
    expect(one("Creatinine 88 \u03bcmol/L 45-90").unit).toBe("\u00b5mol/L");
    expect(one("Vitamin A 1.2 µmol/L 0.7-2.1").name).toBe("Vitamin A");
  });
});

describe("tables", () => {
  test("a header sets the column order, on later pages too", () => {
    const report = parseLabReport([
      "Test Reference Result Units\nPotassium 3.5-5.0 5.4 mmol/L",
      "Urine ketones Negative Trace\nBilirubin <21 9 µmol/L",
    ]);
    expect(report.results.map((r) => [r.name, r.valueText, r.referenceRange.text, r.flag, r.page])).toEqual([
      ["Potassium", "5.4", "3.5-5.0", "high", 1],
      ["Urine ketones", "Trace", "Negative", null, 2],
      ["Bilirubin", "9", "<21", "normal", 2],
    ]);
  });

  test("an empty cell is skipped, and a row the header does not fit reads value first", () => {
    const report = parseLabReport([
      "Test Result Flag Units Reference range\nCreatinine 88 µmol/L 45-90\nHIV 1/2 antibody Negative\nGlucose 6.1 mmol/L 3.9-5.5 H",
    ]);
    expect(report.results.map((r) => [r.name, r.valueText, r.unit])).toEqual([
      ["Creatinine", "88", "µmol/L"],
      ["HIV 1/2 antibody", "Negative", null],
      ["Glucose", "6.1", "mmol/L"],
    ]);
  });
});

describe("noise", () => {
  const NOISE = [
    "Page 1 of 2",
    "Page 2",
    "41 Kingsway, Manchester M20 5PQ",
    "Tel 0161 496 0321",
    "MRN: 00412345",
    "Patient: Ana Lima DOB: 02/05/1984 Sex: F",
    "Fasting: 10 hours",
    "Age: 45 years",
    "Collected: 2026-03-14 08:30 Reported: 2026-03-14 17:05",
    "Reviewed by: Dr. M. Okafor, Consultant Chemical Pathologist",
    "* Result outside the reference interval.",
    "Reference intervals apply to adults aged 18-65.",
    "Lipid panel",
    "Complete blood count (CBC)",
    "Test Result Flag Units Reference range",
    "Your cholesterol was 5.2 mmol/L, slightly above the 5.0",
    "decreased by 1.1 mmol/L and LDL cholesterol by 0.3 mmol/L",
    "with usual care (difference -0.7 %, 95 % CI -1.0 to -0.4; p < 0.001). Fasting glucose",
    "(mean age 58 years, BMI 31.2 kg/m2) to eating within 8 hours or usual care for 12 weeks.",
    "creatinine was unchanged at 78 µmol/L",
    "range 4.0-5.6 %.",
  ];
  test("footers, addresses, labels and prose are not results", () => {
    const found = NOISE.flatMap((line) => parseLabReport([line]).results.map((r) => `${line} → ${r.name}`));
    expect(found).toEqual([]);
  });

  test("text that is not a lab report yields nothing, not even a lab or date", () => {
    expect(parseLabReport([NOISE.join("\n"), "Northside Clinical Laboratory\nCollected: 2026-03-14"])).toEqual({
      lab: null,
      collectedAt: null,
      results: [],
    });
    expect(parseLabReport([])).toEqual({ lab: null, collectedAt: null, results: [] });
  });
});

describe("report header", () => {
  test("collection dates in the printed forms, with and without a time", () => {
    expect(readCollectedAt("Collected: 2026-03-14 08:30")).toBe("2026-03-14T08:30:00");
    expect(readCollectedAt("Date collected 14/03/2026")).toBe("2026-03-14");
    expect(readCollectedAt("Collection Date: Mar 14, 2026")).toBe("2026-03-14");
    expect(readCollectedAt("Specimen collected: 14 March 2026 07:45")).toBe("2026-03-14T07:45:00");
    expect(readCollectedAt("Collected on 13 Mar 2026 at 19:05")).toBe("2026-03-13T19:05:00");
    expect(readCollectedAt("Collection date/time: 14.03.2026 7:05")).toBe("2026-03-14T07:05:00");
    expect(readCollectedAt("Reported: 2026-03-15")).toBeNull();
  });

  test("a day-first date unless its second part cannot be a month; impossible dates are none", () => {
    expect(readDate("03/14/2026")).toBe("2026-03-14");
    expect(readDate("02/05/2026")).toBe("2026-05-02");
    expect(readDate("2026-13-01")).toBeNull();
    expect(readDate("Foo 14, 2026")).toBeNull();
  });

  test("the lab's name: a labelled one first, else a lab-like line at the top", () => {
    expect(readLabName(["LABORATORY REPORT", "Meridian Diagnostics", "Patient: Ana Lima"])).toBe(
      "Meridian Diagnostics",
    );
    expect(readLabName(["Greenfield Hospital", "Performing laboratory: Greenfield Hospital Laboratory"])).toBe(
      "Greenfield Hospital Laboratory",
    );
    expect(readLabName(["Lab results for Ana Lima", "12 Quay Street, Bristol"])).toBeNull();
  });
});
