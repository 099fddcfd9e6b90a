import { readCollectedAt, readColumns } from "./header";
import { normalizeLine } from "./index";

/** Same collection: same day, and the same time when both print one (a page header may drop it). */
function sameCollection(a: string, b: string): boolean {
  return a.slice(0, 10) === b.slice(0, 10) && (a.length === 10 || b.length === 10 || a === b);
}

/**
 * Splits a report's pages where it starts another collection ("Collected: …" with a different
 * date), so each part becomes its own panel. Every part keeps all page slots (empty where it has
 * no text), so the parser's page numbers stay the report's; a part that begins under a table
 * header gets that header again, so its rows are read in the same columns.
 */
export function splitByCollection(pages: string[]): string[][] {
  const parts: string[][][] = [pages.map(() => [])];
  let date: string | null = null;
  let header: string | null = null;
  for (const [index, page] of pages.entries()) {
    for (const line of page.split("\n")) {
      const flat = normalizeLine(line);
      const found = readCollectedAt(flat);
      if (found && date !== null && !sameCollection(found, date)) {
        parts.push(pages.map(() => []));
        if (header !== null) parts.at(-1)?.[index]?.push(header);
      }
      date = found ?? date;
      if (readColumns(flat)) header = line;
      parts.at(-1)?.[index]?.push(line);
    }
  }
  return parts.map((part) => part.map((lines) => lines.join("\n")));
}
