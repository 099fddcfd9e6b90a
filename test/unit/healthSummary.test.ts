import { describe, expect, test } from "bun:test";
import { canMove, roundToTenth } from "../../shared/health/entries";
import type { Entry } from "../../shared/health/schemas";
import { convertTemperature, summarizeEntries } from "../../shared/health/summary";

let n = 0;
function entry(recordedAt: string, fields: Partial<Entry>): Entry {
  n += 1;
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`,
    severity: null,
    symptoms: [],
    temperature: null,
    temperatureUnit: null,
    activityImpact: null,
    note: null,
    recordedAt,
    ...fields,
  };
}

describe("summarizeEntries", () => {
  const entries = [
    entry("2026-03-03T09:00:00.000Z", { severity: 2, activityImpact: "normal" }),
    entry("2026-03-01T08:00:00.000Z", { severity: 6, symptoms: ["fever"], temperature: 39, temperatureUnit: "C" }),
    entry("2026-03-01T20:00:00.000Z", { severity: 8, symptoms: ["Fever", "chills"], activityImpact: "unable" }),
    entry("2026-03-02T12:00:00.000Z", {
      severity: 4,
      temperature: 100.4,
      temperatureUnit: "F",
      activityImpact: "limited",
    }),
  ];
  const summary = summarizeEntries("t", entries, "C");

  test("days are UTC days, oldest first, with per-day severity and the most limiting impact", () => {
    expect(summary.days.map((d) => [d.date, d.entries, d.severity.avg, d.activityImpact])).toEqual([
      ["2026-03-01", 2, 7, "unable"],
      ["2026-03-02", 1, 4, "limited"],
      ["2026-03-03", 1, 2, "normal"],
    ]);
    expect(summary.days[0]?.symptoms).toEqual(["fever", "chills"]);
    expect(summary.days[1]?.temperatureMax).toBe(38);
  });

  test("severity trend is the least-squares slope of daily averages (7, 4, 2 → -2.5 per day)", () => {
    expect(summary.severity).toEqual({ count: 4, min: 2, avg: 5, max: 8, trendPerDay: -2.5 });
  });

  test("symptom spellings merge ignoring case; impact days count limited and unable", () => {
    expect(summary.symptoms.map((s) => [s.symptom, s.count])).toEqual([
      ["fever", 2],
      ["chills", 1],
    ]);
    expect(summary.activityImpact).toEqual({ normal: 1, limited: 1, unable: 1, daysWithImpact: 2 });
    expect(summary.temperature).toEqual({ unit: "C", count: 2, min: 38, max: 39 });
    expect(summary.firstRecordedAt).toBe("2026-03-01T08:00:00.000Z");
  });

  test("an empty log summarizes to zeros and nulls", () => {
    expect(summarizeEntries("t", [], "F")).toMatchObject({
      entryCount: 0,
      firstRecordedAt: null,
      severity: { count: 0, min: null, avg: null, max: null, trendPerDay: null },
      temperature: { unit: "F", count: 0, min: null, max: null },
      days: [],
    });
  });

  test("temperature conversion", () => {
    expect(convertTemperature(37, "C", "F")).toBe(98.6);
    expect(convertTemperature(98.6, "F", "C")).toBe(37);
    expect(convertTemperature(38.2, "C", "C")).toBe(38.2);
  });
});

describe("entry rules", () => {
  test("roundToTenth rounds the decimal as written, half away from zero", () => {
    expect([38.25, 38.35, 1.005, 36.949, 0.05, 0.04, 199.95].map(roundToTenth)).toEqual([
      38.3, 38.4, 1, 36.9, 0.1, 0, 200,
    ]);
  });

  test("status moves", () => {
    expect(canMove("active", "resolved")).toBe(true);
    expect(canMove("resolved", "active")).toBe(true);
    expect(canMove("archived", "active")).toBe(true);
    expect(canMove("archived", "resolved")).toBe(false);
    expect(canMove("archived", "archived")).toBe(true);
  });
});
