import { describe, expect, test } from "bun:test";
import { labResultsText } from "../../shared/chat/turn/attachments";
import { findAnalyte } from "../../shared/labs/analytes";
import { analyze } from "../../shared/llm/offline/intent";
import { historyAnswer } from "../../shared/llm/offline/labAnswers";
import { askedUnit, findAnalytes } from "../../shared/llm/offline/labs";
import { parseLabTable, quoteLabTable } from "../../shared/llm/offline/labTable";
import { firstCalls } from "../../shared/llm/offline/plan";
import type { OfflineVocabulary } from "../../shared/llm/offline/vocabulary";
import { findMedications, medicationNames } from "../../shared/llm/offline/vocabulary";
import { trendOf } from "../../shared/tools/labTrend";

/** The offline model's lab parts that need no services: analyte names, intents, plans, tables, trends. */
const VOCABULARY: OfflineVocabulary = {
  conditions: async () => [],
  cachedMedications: async () => [],
  analytes: (phrases) =>
    phrases.flatMap((phrase) => {
      const analyte = findAnalyte(phrase);
      return analyte ? [{ phrase, name: analyte.name, code: analyte.code }] : [];
    }),
};
const TOOLS = new Set(["list_lab_panels", "get_lab_history", "get_medication_reference", "search_papers"]);
const NAMES = medicationNames([]);

function plan(text: string) {
  const q = analyze(text, {
    medications: findMedications(text, NAMES).map((m) => m.name),
    brands: {},
    conditions: [],
    symptoms: [],
    analytes: findAnalytes(text, VOCABULARY),
  });
  return firstCalls(q, TOOLS).map((call) => `${call.toolName} ${JSON.stringify(call.input)}`);
}

describe("lab names and questions", () => {
  test("analytes by name, synonym, LOINC code; short abbreviations only as abbreviations", () => {
    const names = (text: string) => findAnalytes(text, VOCABULARY).map((a) => a.name);
    expect(names("is my hemoglobin a1c or my LDL higher than my 2345-7?")).toEqual([
      "HbA1c",
      "LDL cholesterol",
      "Glucose",
    ]);
    expect(names("my ldl and tsh")).toEqual(["LDL cholesterol", "TSH"]);
    // "got", "be", "mg" and "bun" are words and units here, not GOT, BE, Mg and BUN.
    expect(names("I got 81 mg of aspirin, be honest, and a bun")).toEqual([]);
    expect(names("my BUN is up")).toEqual(["BUN"]);
  });

  test("history, panels, or neither", () => {
    expect(plan("What were my last cholesterol results?")).toEqual([
      'get_lab_history {"name":"Total cholesterol"}',
      'get_lab_history {"name":"LDL cholesterol"}',
      'get_lab_history {"name":"HDL cholesterol"}',
    ]);
    expect(plan("Is my total cholesterol going down?")).toEqual(['get_lab_history {"name":"Total cholesterol"}']);
    expect(plan("What's my latest glucose in mmol/L?")).toEqual(['get_lab_history {"name":"Glucose","unit":"mmol/L"}']);
    expect(plan("Which of my blood test results are out of range?")).toEqual(['list_lab_panels {"limit":5}']);
    // A medicine of the same name is not a lab question.
    expect(plan("Does ibuprofen interact with my iron tablets?")).toEqual([
      'get_medication_reference {"name":"ibuprofen"}',
    ]);
    expect(askedUnit("convert it to umol/l please")).toBe("umol/L");
    expect(askedUnit("in 2026")).toBeUndefined();
  });
});

describe("tables and trends", () => {
  const point = (collectedAt: string, value: number | null, flag: "high" | "normal" | null, unit = "%") => ({
    collectedAt,
    value,
    unit,
    flag,
    panelId: "019aa000-0000-7000-8000-000000000000",
  });
  const history = (points: ReturnType<typeof point>[]) => ({
    analyte: { name: "HbA1c", code: "4548-4", unit: "%" },
    points,
  });

  test("the trend compares the first and last values in the history's unit; 2 % or less is steady", () => {
    const falling = history([
      point("2025-01-01", 7.2, "high"),
      point("2025-06-01", null, null),
      point("2026-01-01", 6.4, "high"),
    ]);
    expect(trendOf(falling)).toMatchObject({ direction: "falling", change: -0.8, compared: 2 });
    expect(trendOf(history([point("2025-01-01", 5.0, "normal"), point("2026-01-01", 5.1, "normal")]))?.direction).toBe(
      "steady",
    );
    expect(
      trendOf(history([point("2025-01-01", 5.0, "normal"), point("2026-01-01", 40, null, "mmol/mol")])),
    ).toBeNull();
    const answer = historyAnswer({ ...falling, trend: trendOf(falling) });
    expect(answer).toContain("Trend: falling (going down), from 7.2 % on 2025-01-01 to 6.4 % on 2026-01-01 (−0.8 %");
    expect(answer).toContain("Flagged: 7.2 % on 2025-01-01 (high), 6.4 % on 2026-01-01 (high).");
  });

  test("the attachment's results table reads back as written, bars in names made harmless", () => {
    const pages = ["Hemoglobin 11.4 g/dL 12.0-15.5 L\nPotassium 4.2 mmol/L 3.5-5.0"];
    const text = labResultsText('report "A|B".pdf', pages) as string;
    const table = parseLabTable(text);
    expect(table?.filename).toBe('report "A B".pdf');
    expect(table?.rows).toEqual([
      { test: "Hemoglobin", value: "11.4", unit: "g/dL", range: "12.0-15.5", flag: "low", page: "1" },
      { test: "Potassium", value: "4.2", unit: "mmol/L", range: "3.5-5.0", flag: "normal", page: "1" },
    ]);
    expect(quoteLabTable(table as NonNullable<typeof table>)).toContain("Hemoglobin 11.4 g/dL (low; range 12.0-15.5)");
    expect(labResultsText("letter.pdf", ["Dear patient, see you on Tuesday."])).toBeUndefined();
  });
});
