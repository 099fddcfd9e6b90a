import { readCollectedAt, readColumns, readLabName } from "./header";
import { type Column, DEFAULT_COLUMNS, parseRow } from "./line";
import type { ParsedLabReport, ParsedResult } from "./types";

export type { ParsedLabReport, ParsedResult } from "./types";
export { ParsedLabReportSchema, ParsedResultSchema } from "./types";

/**
 * pdf.js maps the micro sign to the Greek mu and joins table cells with spaces; table rules drawn
 * as text ("|") carry no meaning.
 */
export function normalizeLine(line: string): string {
  return line
    .replace(/\u03bc/g, "\u00b5")
    .replace(/[|\u00a0\t]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Reads a lab report from the text of its pages (as the upload extraction yields it, one string
 * per page): the results, the lab's name and the collection date. A table header sets the column
 * order for the rows below it, on later pages too, until another header; rows without one read
 * value first. Text that is not a lab report yields no results, and then no lab or date either.
 */
export function parseLabReport(pages: string[]): ParsedLabReport {
  const lines = pages.map((page) => page.split("\n").map(normalizeLine).filter(Boolean));
  const results: ParsedResult[] = [];
  let columns: Column[] | null = null;
  let collectedAt: string | null = null;
  for (const [index, pageLines] of lines.entries()) {
    for (const line of pageLines) {
      collectedAt ??= readCollectedAt(line);
      const header = readColumns(line);
      if (header) {
        columns = header;
        continue;
      }
      const row = (columns && parseRow(line, columns)) ?? parseRow(line, DEFAULT_COLUMNS);
      if (row) results.push({ ...row, page: index + 1 });
    }
  }
  if (results.length === 0) return { lab: null, collectedAt: null, results };
  return { lab: readLabName(lines[0] ?? []), collectedAt, results };
}
