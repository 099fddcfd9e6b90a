import type { LabPanel } from "../schemas";

/** One line per result; a panel's own fields repeat on each of its lines. */
const COLUMNS = [
  "panelId",
  "collectedAt",
  "lab",
  "name",
  "code",
  "value",
  "valueText",
  "unit",
  "rangeLow",
  "rangeHigh",
  "rangeText",
  "flag",
] as const;

const PLAIN_NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * One RFC 4180 cell. Text starting with = + - @ (or a tab/CR) is prefixed with `'` so a spreadsheet
 * shows it instead of running it as a formula (CSV injection); a printed number such as `-2.5` is
 * not a formula and stays as it is.
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every result of the panels, in the order given, as CSV with a header line. Lines end with CRLF. */
export function panelsToCsv(panels: readonly LabPanel[]): string {
  const lines: string[] = [COLUMNS.join(",")];
  for (const panel of panels) {
    for (const result of panel.results) {
      const { low, high, text } = result.referenceRange;
      const row = [panel.id, panel.collectedAt, panel.lab, result.name, result.code, result.value, result.valueText];
      row.push(result.unit, low, high, text, result.flag);
      lines.push(row.map(cell).join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
