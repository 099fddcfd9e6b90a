const PLAIN_NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * One RFC 4180 cell. Text starting with = + - @ (or a tab/CR) is prefixed with `'` so a spreadsheet
 * shows it instead of running it as a formula (CSV injection); a plain number such as `-2.5` is not
 * a formula and stays as it is.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line and rows as CSV text; lines end with CRLF. */
export function csvText(header: readonly string[], rows: readonly (string | number | null)[][]): string {
  return [header.join(","), ...rows.map((row) => row.map(csvCell).join(","))].map((line) => `${line}\r\n`).join("");
}
