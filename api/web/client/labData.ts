/**
 * Lab panels as the API returns them, and how the Labs page words them: dates as printed on the
 * report, reference ranges, flags as text (H, L, abnormal) so they never rest on colour alone.
 */

export type LabFlag = "low" | "high" | "normal" | "abnormal";

export interface LabResult {
  name: string;
  code: string | null;
  value: number | null;
  valueText: string;
  unit: string | null;
  referenceRange: { low: number | null; high: number | null; text: string | null };
  flag: LabFlag | null;
}

export interface LabPanel {
  id: string;
  collectedAt: string;
  lab: string | null;
  source: { fileId: string; pages: number[]; recordImportId?: string } | null;
  createdAt: string;
  results: LabResult[];
}

export interface HistoryPoint {
  collectedAt: string;
  value: number | null;
  unit: string | null;
  flag: LabFlag | null;
  panelId: string;
}

export interface AnalyteHistory {
  analyte: { name: string; code: string | null; unit: string | null };
  points: HistoryPoint[];
}

/** A test to chart: the results the API's history groups (one LOINC code, else one name). */
export interface AnalyteChoice {
  key: string;
  label: string;
  /** What to ask the history for: the LOINC code when known, else the name. */
  query: string;
  /** The unit of the newest result that has one: its reference range can then be drawn as printed. */
  unit: string | null;
  count: number;
}

/**
 * Collection times are stored as the report printed them (without a zone, so as UTC): shown in UTC,
 * a report's date stays the date it printed wherever the page is opened.
 */
export function collectedDate(iso: string): string {
  const date = new Date(iso);
  const day = date.toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" });
  if (date.getUTCHours() === 0 && date.getUTCMinutes() === 0) return day;
  return `${day}, ${date.toLocaleTimeString(undefined, { timeStyle: "short", timeZone: "UTC" })}`;
}

export function shortDate(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: "short", timeZone: "UTC" });
}

/** The range as printed, else built from its bounds; null when the report gave none. */
export function rangeText(range: LabResult["referenceRange"]): string | null {
  if (range.text) return range.text;
  if (range.low !== null && range.high !== null) return `${range.low}–${range.high}`;
  if (range.high !== null) return `< ${range.high}`;
  if (range.low !== null) return `> ${range.low}`;
  return null;
}

/** The marker shown for a flag, and the word a screen reader gets with it; null when not flagged. */
export function flagMark(flag: LabFlag | null): { mark: string; word: string } | null {
  switch (flag) {
    case "high":
      return { mark: "H", word: "high" };
    case "low":
      return { mark: "L", word: "low" };
    case "abnormal":
      return { mark: "abnormal", word: "abnormal" };
    default:
      return null;
  }
}

export const isFlagged = (result: { flag: LabFlag | null }) => flagMark(result.flag) !== null;

/** Every test in these panels (newest first), once, by name. */
export function analyteChoices(panels: LabPanel[]): AnalyteChoice[] {
  const choices = new Map<string, AnalyteChoice>();
  for (const panel of panels) {
    for (const result of panel.results) {
      const key = result.code ?? `name:${result.name.toLowerCase()}`;
      const known = choices.get(key);
      if (known) {
        known.count += 1;
        known.unit ??= result.unit;
      } else {
        const query = result.code ?? result.name;
        choices.set(key, { key, label: result.name, query, unit: result.unit, count: 1 });
      }
    }
  }
  return [...choices.values()].sort((a, b) => a.label.localeCompare(b.label));
}

/** A history point with the panel result it came from (for the value as printed and its range). */
export interface MatchedPoint extends HistoryPoint {
  result: LabResult | null;
  /** The result's range in the chart's unit: only when the value was not converted. */
  range: { low: number | null; high: number | null } | null;
}

/**
 * Pairs each point with its panel's result. The history lists a panel's matches in the panel's own
 * order, so the n-th point of a panel is its n-th matching result.
 */
export function matchPoints(history: AnalyteHistory, choice: AnalyteChoice, panels: LabPanel[]): MatchedPoint[] {
  const byId = new Map(panels.map((panel) => [panel.id, panel]));
  const names = new Set([choice.label.toLowerCase(), history.analyte.name.toLowerCase()]);
  const code = history.analyte.code;
  const used = new Map<string, number>();
  return history.points.map((point) => {
    const matches = (byId.get(point.panelId)?.results ?? []).filter(
      (result) => (code !== null && result.code === code) || names.has(result.name.toLowerCase()),
    );
    const index = used.get(point.panelId) ?? 0;
    used.set(point.panelId, index + 1);
    const result = matches[index] ?? null;
    // An unconverted value is returned as stored; a converted one differs (0 only matches in one unit).
    const sameUnit =
      result !== null &&
      point.value !== null &&
      point.value === result.value &&
      (point.value !== 0 || (result.unit ?? "").toLowerCase() === (point.unit ?? "").toLowerCase());
    const { low, high } = result?.referenceRange ?? { low: null, high: null };
    const range = sameUnit && (low !== null || high !== null) ? { low, high } : null;
    return { ...point, result, range };
  });
}

/** "1 result", "3 results". */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** "6.4 mmol/L" */
export function withUnit(value: number | string, unit: string | null): string {
  return unit ? `${value} ${unit}` : String(value);
}
