import { csvText } from "../core/csv";
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

/** Entries as CSV with a header row; symptoms are joined with "; ". Lines end with CRLF. */
export function entriesToCsv(entries: readonly Entry[]): string {
  const rows = entries.map((entry) =>
    COLUMNS.map((column) => (column === "symptoms" ? entry.symptoms.join("; ") : entry[column])),
  );
  return csvText(COLUMNS, rows);
}
