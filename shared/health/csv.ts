import type { Entry } from "./schemas";

const COLUMNS = [
  "id",
  "recordedAt",
  "severity",
  "symptoms",
  "temperature",
  "temperatureUnit",
  "activityImpact",
  "note",
] as const;

/**
 * One RFC 4180 cell. Text starting with = + - @ (or a tab/CR) is prefixed with `'` so a
 * spreadsheet shows it instead of running it as a formula (CSV injection).
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Entries as CSV with a header row; symptoms are joined with "; ". Lines end with CRLF. */
export function entriesToCsv(entries: readonly Entry[]): string {
  const lines = [COLUMNS.join(",")];
  for (const entry of entries) {
    lines.push(
      COLUMNS.map((column) => (column === "symptoms" ? cell(entry.symptoms.join("; ")) : cell(entry[column]))).join(
        ",",
      ),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
