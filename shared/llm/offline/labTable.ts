/**
 * The results table the chat turn puts before an attached lab report's text
 * (shared/chat/turn/attachments.ts, `labResultsText`), read back and quoted with its flagged rows.
 */
export interface LabTableRow {
  test: string;
  value: string;
  unit: string | null;
  range: string | null;
  flag: string | null;
  page: string;
}

export interface LabTable {
  filename: string;
  /** "lab: …; collected: …" when the report prints them. */
  about: string | null;
  rows: LabTableRow[];
}

const HEAD = /^Lab results read from the attached file "(.*)" by the service's report parser \(\d+; [^)]*\):\n/;
const cellOf = (text: string | undefined) => (text === undefined || text === "—" ? null : text);

export function parseLabTable(text: string): LabTable | undefined {
  const head = HEAD.exec(text);
  if (!head) return undefined;
  const lines = text.slice(head[0].length).split("\n");
  const about = lines[0]?.startsWith("|") ? null : (lines[0] ?? null);
  const rows = lines
    .filter((line) => line.startsWith("| ") && !line.startsWith("| test |"))
    .map((line) => line.slice(2, -2).split(" | "))
    .map(([test, value, unit, range, flag, page]) => ({
      test: test ?? "",
      value: value ?? "",
      unit: cellOf(unit),
      range: cellOf(range),
      flag: cellOf(flag),
      page: page ?? "",
    }));
  return { filename: head[1] as string, about, rows };
}

const FLAGGED = new Set(["low", "high", "abnormal"]);
const MAX_ROWS = 25;
const withUnit = (row: LabTableRow) => `${row.value}${row.unit ? ` ${row.unit}` : ""}`;

/** The table as the offline answer quotes it: every row (up to 25), then the flagged ones named. */
export function quoteLabTable(table: LabTable): string {
  const lines = [
    `The lab-report parser read ${table.rows.length} result${table.rows.length === 1 ? "" : "s"} from "${table.filename}"${table.about ? ` (${table.about})` : ""}. It reads the report's text by rules, so check them against the report:`,
    "| test | value | reference range | flag | page |",
    "|---|---|---|---|---|",
    ...table.rows
      .slice(0, MAX_ROWS)
      .map((row) => `| ${row.test} | ${withUnit(row)} | ${row.range ?? "—"} | ${row.flag ?? "—"} | ${row.page} |`),
  ];
  if (table.rows.length > MAX_ROWS) lines.push(`(${table.rows.length - MAX_ROWS} more results not shown)`);
  const flagged = table.rows.filter((row) => row.flag !== null && FLAGGED.has(row.flag));
  lines.push(
    flagged.length
      ? `Flagged by the report or outside its reference range: ${flagged
          .map((row) => `${row.test} ${withUnit(row)} (${row.flag}${row.range ? `; range ${row.range}` : ""})`)
          .join(", ")}.`
      : "None of these results is flagged low, high or abnormal.",
  );
  return lines.join("\n");
}
