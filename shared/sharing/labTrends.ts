/**
 * Lab results per test for a doctor's summary: the latest value as reported, the ones before it
 * converted to its unit where a conversion is known (as the analyte history does), and which way
 * it moved. Tests are told apart by their catalogue analyte, else their LOINC code, else their name.
 */
import { type Analyte, findAnalyte, foldName, resolveAnalyte } from "../labs/analytes";
import { inUnit } from "../labs/history";
import type { LabPanel, LabResult } from "../labs/schemas";
import type { LabTrend } from "./schemas";

/** How many tests the page lists, earlier results per test, and values per sparkline. */
const TREND_LIMITS = { tests: 24, previous: 5, series: 12 } as const;

/** Within 1 % of the value before counts as unchanged. */
const STEADY = 0.01;

interface Row {
  collectedAt: string;
  result: LabResult;
}

interface Group {
  analyte: Analyte | undefined;
  rows: Row[];
}

function analyteOf(result: LabResult): Analyte | undefined {
  return (result.code ? findAnalyte(result.code) : undefined) ?? resolveAnalyte(result.name, result.unit);
}

/** Results by test, each test's rows oldest first (panels come oldest first). */
function byTest(panels: readonly LabPanel[]): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const panel of panels) {
    for (const result of panel.results) {
      const analyte = analyteOf(result);
      const key = analyte?.code ?? result.code ?? `name:${foldName(result.name)}`;
      const group = groups.get(key) ?? { analyte, rows: [] };
      group.rows.push({ collectedAt: panel.collectedAt, result });
      groups.set(key, group);
    }
  }
  return groups;
}

function valueIn(row: Row, analyte: Analyte | undefined, target: string | null): LabTrend["latest"] {
  const { value, unit } = inUnit(row, analyte, target);
  const converted = value !== null && unit !== row.result.unit;
  return {
    collectedAt: row.collectedAt,
    value,
    valueText: converted ? String(value) : row.result.valueText,
    unit,
    flag: row.result.flag,
  };
}

function direction(latest: LabTrend["latest"], before: LabTrend["latest"] | undefined): LabTrend["direction"] {
  if (!before || latest.value === null || before.value === null || latest.unit !== before.unit) return null;
  const scale = Math.max(Math.abs(latest.value), Math.abs(before.value));
  if (Math.abs(latest.value - before.value) <= STEADY * scale) return "steady";
  return latest.value > before.value ? "up" : "down";
}

function trendOf(group: Group): LabTrend {
  const newest = group.rows.at(-1) as Row;
  const target = newest.result.unit ?? group.analyte?.unit ?? null;
  const values = group.rows.map((row) => valueIn(row, group.analyte, target));
  const latest = values.at(-1) as LabTrend["latest"];
  const before = values.slice(0, -1).reverse();
  return {
    name: group.analyte?.name ?? newest.result.name,
    code: group.analyte?.code ?? newest.result.code,
    latest,
    previous: before.slice(0, TREND_LIMITS.previous),
    direction: direction(latest, before[0]),
    series: values
      .filter((point) => point.value !== null && point.unit === latest.unit)
      .map((point) => point.value as number)
      .slice(-TREND_LIMITS.series),
  };
}

/** The tests measured most recently first (ties by name), at most TREND_LIMITS.tests; how many more there are. */
export function labTrends(panels: readonly LabPanel[]): { trends: LabTrend[]; more: number } {
  const trends = [...byTest(panels).values()]
    .map(trendOf)
    .sort((a, b) => b.latest.collectedAt.localeCompare(a.latest.collectedAt) || a.name.localeCompare(b.name));
  return { trends: trends.slice(0, TREND_LIMITS.tests), more: Math.max(0, trends.length - TREND_LIMITS.tests) };
}
