import { csvText } from "../../core/csv";
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

/** Every result of the panels, in the order given, as CSV with a header line. Lines end with CRLF. */
export function panelsToCsv(panels: readonly LabPanel[]): string {
  const rows = panels.flatMap((panel) =>
    panel.results.map((result) => {
      const { low, high, text } = result.referenceRange;
      const { name, code, value, valueText, unit, flag } = result;
      return [panel.id, panel.collectedAt, panel.lab, name, code, value, valueText, unit, low, high, text, flag];
    }),
  );
  return csvText(COLUMNS, rows);
}
