import { describe, expect, test } from "bun:test";
import { parseLabReport } from "../../../shared/labs/extract/index";
import type { ParsedResult } from "../../../shared/labs/extract/types";
import { inspectUpload } from "../../../shared/uploads/inspect";
import { LAB_REPORTS, type LabReportFixture, prosePdf, type TruthResult } from "../../helpers/labReports";

/** The text of each page, through the same extraction uploads get (unpdf, pdf.js). */
async function pagesOf(pdf: Uint8Array): Promise<string[]> {
  const inspection = await inspectUpload(pdf, { contentType: "application/pdf", size: pdf.length });
  if (!inspection.ok) throw new Error(inspection.reason);
  return inspection.pages;
}

function asTruth(result: ParsedResult): TruthResult {
  const { referenceRange, ...rest } = result;
  return { ...rest, low: referenceRange.low, high: referenceRange.high, rangeText: referenceRange.text };
}

/** One key per result with every field in a fixed order: a result counts only when all fields match. */
function key(result: TruthResult): string {
  const { name, valueText, value, unit, low, high, rangeText, flag, page } = result;
  return JSON.stringify([name, valueText, value, unit, low, high, rangeText, flag, page]);
}

/** True positives: extracted results matched one-to-one with the truth's. */
function matched(extracted: TruthResult[], truth: TruthResult[]): number {
  const left = new Map<string, number>();
  for (const result of truth) left.set(key(result), (left.get(key(result)) ?? 0) + 1);
  let hits = 0;
  for (const result of extracted) {
    const remaining = left.get(key(result)) ?? 0;
    if (remaining > 0) {
      left.set(key(result), remaining - 1);
      hits += 1;
    }
  }
  return hits;
}

const fixtures: LabReportFixture[] = await Promise.all(LAB_REPORTS.map((make) => make()));
const runs = await Promise.all(
  fixtures.map(async (fixture) => {
    const pages = await pagesOf(fixture.pdf);
    return { fixture, pages, parsed: parseLabReport(pages) };
  }),
);
const totals = runs.reduce(
  (sum, { fixture, parsed }) => {
    const extracted = parsed.results.map(asTruth);
    return {
      extracted: sum.extracted + extracted.length,
      truth: sum.truth + fixture.truth.results.length,
      hits: sum.hits + matched(extracted, fixture.truth.results),
    };
  },
  { extracted: 0, truth: 0, hits: 0 },
);
/** A GP's letter and a paper's abstract: values with units in sentences, in no report. */
const LETTER = [
  "Oakwood Family Practice, 12 Elm Road, Leeds LS6 2AB",
  "14 March 2026",
  "Dear Ms Lima,",
  "Your recent blood tests came back. Your cholesterol was 5.2 mmol/L, slightly above the 5.0 mmol/L we aim for, and your HbA1c of 41 mmol/mol is in the normal range. Hemoglobin was 13.5 g/dL.",
  "Please book a review in 3 months. Fasting for 10 hours before the test is not needed.",
  "Yours sincerely, Dr. Helen Carter",
];
const ABSTRACT = [
  "Effect of time-restricted eating on glycaemic control in adults with type 2 diabetes",
  "Department of Clinical Biochemistry, University Hospital Laboratory, Oslo",
  "Background: Time-restricted eating may lower HbA1c. Methods: We randomised 120 adults (mean age 58 years, BMI 31.2 kg/m2) to eating within 8 hours or usual care for 12 weeks. Results: HbA1c fell from 8.1 % to 7.2 % in the intervention group versus 8.0 % to 7.8 % with usual care (difference -0.7 %, 95 % CI -1.0 to -0.4; p < 0.001). Fasting glucose decreased by 1.1 mmol/L and LDL cholesterol by 0.3 mmol/L; creatinine was unchanged at 78 µmol/L.",
  "Conclusions: Time-restricted eating improved glycaemic control over 12 weeks. Reference range 4.0-5.6 %.",
];

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((1000 * part) / whole) / 10);
const precision = percent(totals.hits, totals.extracted);
const recall = percent(totals.hits, totals.truth);

describe("lab reports read through the real PDF text extraction", () => {
  test("the fixtures are real-looking: five layouts, two of them multi-page tables", () => {
    expect(fixtures).toHaveLength(5);
    const multiPage = runs.filter(({ pages }) => pages.length > 1).map(({ fixture }) => fixture.layout);
    expect(multiPage.filter((layout) => layout.includes("table"))).toHaveLength(2);
    const flags = fixtures.flatMap((fixture) => fixture.truth.results.map((result) => result.flag));
    for (const flag of ["low", "high", "normal", "abnormal", null]) expect(flags).toContain(flag as never);
  });

  test(`precision ${precision} % and recall ${recall} % over ${totals.truth} printed results`, () => {
    console.log(`lab parser: ${totals.hits} of ${totals.extracted} extracted correct (precision ${precision} %),`);
    console.log(`            ${totals.hits} of ${totals.truth} printed found (recall ${recall} %)`);
    expect(totals.hits).toBe(totals.truth);
    expect(totals.extracted).toBe(totals.truth);
  });

  for (const { fixture, parsed } of runs) {
    test(`${fixture.layout}: every result, the lab's name and the collection date`, () => {
      expect(parsed.results.map(asTruth)).toEqual(fixture.truth.results);
      expect(parsed.lab).toBe(fixture.truth.lab);
      expect(parsed.collectedAt).toBe(fixture.truth.collectedAt);
    });
  }

  test("a letter and a paper's abstract, full of values with units, yield nothing", async () => {
    for (const text of [LETTER, ABSTRACT]) {
      const pages = await pagesOf(await prosePdf(text));
      expect(pages.join("\n")).toMatch(/mmol\/L/);
      expect(parseLabReport(pages)).toEqual({ lab: null, collectedAt: null, results: [] });
    }
  });
});
