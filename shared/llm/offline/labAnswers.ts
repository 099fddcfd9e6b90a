import { type Json, list, obj, str } from "./json";

/**
 * Answers about the caller's lab results, from `get_lab_history` and `list_lab_panels`: a small
 * table, the trend in words, and which values are flagged. Nothing is judged beyond what the
 * results and their reference ranges say.
 */
const FLAGGED = new Set(["low", "high", "abnormal"]);
/** Points of one history shown in its table: the newest ones. */
const MAX_POINTS = 8;
const MAX_RESULTS = 20;

const day = (value: unknown) => (str(value) ?? "").slice(0, 10);
const num = (value: unknown) => (typeof value === "number" ? value : null);

/** A UCUM unit as reports print it: "m[IU]/L" → "mIU/L", "10*3/uL" → "10^3/µL", "ug/dL" → "µg/dL". */
export function readableUnit(unit: string): string {
  return unit
    .replace(/\[([A-Za-z]+)\]/g, "$1")
    .replace(/10\*(\d+)/g, "10^$1")
    .replace(/(^|\/)u(?=(?:g|mol|L|IU|U|eq)\b)/g, "$1µ")
    .replace(/\{1\.73_m2\}/g, "1.73 m²")
    .replace(/\{[^}]*\}/g, "");
}

const unitOf = (unit: unknown) => (str(unit) ? readableUnit(str(unit) as string) : undefined);
const amount = (value: unknown, unit: unknown) =>
  `${num(value) ?? str(value) ?? "—"}${unitOf(unit) ? ` ${unitOf(unit)}` : ""}`;

const WORDS: Record<string, string> = {
  rising: "rising (going up)",
  falling: "falling (going down)",
  steady: "steady (within 2 %)",
};

function trendLine(trend: Json, unit: string | undefined): string {
  const from = obj(trend.from);
  const to = obj(trend.to);
  const change = num(trend.change) ?? 0;
  const signed = `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)}${unit ? ` ${unit}` : ""}`;
  return `Trend: ${WORDS[str(trend.direction) ?? ""] ?? str(trend.direction)}, from ${amount(from.value, unit)} on ${day(from.collectedAt)} to ${amount(to.value, unit)} on ${day(to.collectedAt)} (${signed}, over ${num(trend.compared)} values).`;
}

function flaggedLine(points: Json[]): string {
  const flagged = points.filter((p) => FLAGGED.has(str(p.flag) ?? ""));
  if (flagged.length === 0) return "None of these values is flagged low, high or abnormal.";
  const items = flagged.map((p) => `${amount(p.value, p.unit)} on ${day(p.collectedAt)} (${str(p.flag)})`);
  return `Flagged: ${items.join(", ")}.`;
}

/** One analyte's history: its newest values as a table, the trend, and the flagged values. */
export function historyAnswer(output: unknown): string {
  const history = obj(output);
  const analyte = obj(history.analyte);
  const name = str(analyte.name) ?? "This test";
  const head = `${name}${str(analyte.code) ? ` (LOINC ${str(analyte.code)})` : ""}`;
  const points = list(history.points).map(obj);
  if (points.length === 0) return `You have no ${name} results stored.`;
  const shown = points.slice(-MAX_POINTS);
  const lines = [
    `Your ${head} results${unitOf(analyte.unit) ? `, in ${unitOf(analyte.unit)} where a conversion is known` : ""} (oldest first):`,
    "| collected | value | flag |",
    "|---|---|---|",
    ...shown.map((p) => `| ${day(p.collectedAt)} | ${amount(p.value, p.unit)} | ${str(p.flag) ?? "—"} |`),
  ];
  if (points.length > shown.length) lines.push(`(${points.length - shown.length} older values not shown)`);
  const latest = points.at(-1) as Json;
  lines.push(
    `Latest: ${amount(latest.value, latest.unit)} on ${day(latest.collectedAt)}${str(latest.flag) ? ` (${str(latest.flag)})` : ""}.`,
  );
  const trend = obj(history.trend);
  lines.push(str(trend.direction) ? trendLine(trend, unitOf(trend.unit)) : "One value in this unit: no trend yet.");
  lines.push(flaggedLine(shown));
  return lines.join("\n");
}

function range(result: Json): string {
  const r = obj(result.referenceRange);
  if (str(r.text)) return str(r.text) as string;
  const [low, high] = [num(r.low), num(r.high)];
  if (low !== null && high !== null) return `${low}–${high}`;
  return low !== null ? `≥ ${low}` : high !== null ? `≤ ${high}` : "—";
}

function panelTable(panel: Json): string[] {
  const results = list(panel.results).map(obj);
  const rows = results
    .slice(0, MAX_RESULTS)
    .map(
      (r) =>
        `| ${str(r.name)} | ${str(r.valueText) ?? "—"}${str(r.unit) ? ` ${str(r.unit)}` : ""} | ${range(r)} | ${str(r.flag) ?? "—"} |`,
    );
  const more = results.length > MAX_RESULTS ? [`(${results.length - MAX_RESULTS} more results not shown)`] : [];
  return ["| test | value | reference range | flag |", "|---|---|---|---|", ...rows, ...more];
}

/** The newest panel as a table, then every flagged value of the panels read. */
export function panelsAnswer(output: unknown): string {
  const page = obj(output);
  if (page.consentGiven !== true) return "Lab results need consent; none can be read.";
  const panels = list(page.panels).map(obj);
  const newest = panels[0];
  if (!newest) return "You have no lab panels stored yet.";
  const lab = str(newest.lab) ? ` at ${str(newest.lab)}` : "";
  const lines = [`Your newest lab panel, collected ${day(newest.collectedAt)}${lab}:`, ...panelTable(newest)];
  const flagged = list(page.flagged).map(obj);
  const count = `${panels.length} newest panel${panels.length === 1 ? "" : "s"}`;
  lines.push(
    flagged.length === 0
      ? `None of the values in your ${count} is flagged low, high or abnormal.`
      : `Flagged values in your ${count}: ${flagged
          .map(
            (f) =>
              `${str(f.name)} ${str(f.valueText)}${str(f.unit) ? ` ${str(f.unit)}` : ""} (${str(f.flag)}, ${day(f.collectedAt)})`,
          )
          .join("; ")}.`,
  );
  return lines.join("\n");
}
