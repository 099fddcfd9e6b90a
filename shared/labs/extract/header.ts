import type { Column } from "./line";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const TIME = String.raw`(?:,?\s+(?:at\s+)?(\d{1,2}):(\d{2}))?`;
const COLLECTED =
  /\b(?:date\s+(?:of\s+)?collect(?:ed|ion)|collect(?:ed|ion)(?:\s+date)?(?:\s*\/\s*time)?|(?:specimen|sample)\s+(?:collected|taken|date)|drawn)(?:\s+(?:on|at))?\s*:?\s*/i;

const pad = (n: number) => String(n).padStart(2, "0");

function isoDate(year: number, month: number, day: number, hour?: string, minute?: string): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1900 || year > 2200) return null;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  if (hour === undefined || minute === undefined) return date;
  if (Number(hour) > 23 || Number(minute) > 59) return null;
  return `${date}T${pad(Number(hour))}:${minute}:00`;
}

function monthOf(word: string): number {
  return MONTHS.indexOf(word.slice(0, 3).toLowerCase()) + 1;
}

/**
 * A date at the start of `text`: 2026-03-14, 14/03/2026 (day first unless that cannot be),
 * Mar 14, 2026 or 14 March 2026, each with an optional time.
 */
export function readDate(text: string): string | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|,?\s+(?:at\s+)?)(\d{1,2}):(\d{2}))?/.exec(text);
  if (iso) return isoDate(Number(iso[1]), Number(iso[2]), Number(iso[3]), iso[4], iso[5]);
  const numeric = new RegExp(`^(\\d{1,2})[/.](\\d{1,2})[/.](\\d{4})${TIME}`).exec(text);
  if (numeric) {
    const [a, b] = [Number(numeric[1]), Number(numeric[2])];
    const [day, month] = b > 12 ? [b, a] : [a, b];
    return isoDate(Number(numeric[3]), month, day, numeric[4], numeric[5]);
  }
  const monthFirst = new RegExp(`^([A-Za-z]{3,9})\\.?\\s+(\\d{1,2}),?\\s+(\\d{4})${TIME}`).exec(text);
  if (monthFirst && monthOf(monthFirst[1]!))
    return isoDate(Number(monthFirst[3]), monthOf(monthFirst[1]!), Number(monthFirst[2]), monthFirst[4], monthFirst[5]);
  const dayFirst = new RegExp(`^(\\d{1,2})\\s+([A-Za-z]{3,9})\\.?,?\\s+(\\d{4})${TIME}`).exec(text);
  if (dayFirst && monthOf(dayFirst[2]!))
    return isoDate(Number(dayFirst[3]), monthOf(dayFirst[2]!), Number(dayFirst[1]), dayFirst[4], dayFirst[5]);
  return null;
}

/** The collection date on a line that labels one ("Collected: …", "Date collected …"). */
export function readCollectedAt(line: string): string | null {
  const label = COLLECTED.exec(line);
  return label ? readDate(line.slice(label.index + label[0].length)) : null;
}

const LAB_LABEL = /^(?:performing\s+)?(?:laboratory|lab)(?:\s+name)?\s*:\s*(.+)$|^performed\s+(?:at|by)\s*:?\s*(.+)$/i;
const LAB_WORD = /\b(?:laborator(?:y|ies)|labs?|pathology|diagnostics?|clinical|hospital|clinic|medical)\b/i;
const NOT_A_NAME = /\b(?:reports?|results?|requests?|tests?|patient|department|cumulative)\b|[\d:@]/i;
/** The lab's name is printed near the top of a report, above the patient details. */
const HEAD_LINES = 8;

/** The lab's name: a labelled one anywhere on the first page, else a lab-like line at its top. */
export function readLabName(firstPage: string[]): string | null {
  for (const line of firstPage) {
    const label = LAB_LABEL.exec(line);
    if (label) return (label[1] ?? label[2] ?? "").trim() || null;
  }
  const head = firstPage.slice(0, HEAD_LINES);
  return head.find((line) => line.length <= 80 && LAB_WORD.test(line) && !NOT_A_NAME.test(line)) ?? null;
}

const HEADER_WORDS: Record<string, Column | "name" | "skip"> = {
  test: "name",
  tests: "name",
  analyte: "name",
  investigation: "name",
  parameter: "name",
  examination: "name",
  component: "name",
  result: "value",
  results: "value",
  value: "value",
  flag: "flag",
  flags: "flag",
  status: "flag",
  unit: "unit",
  units: "unit",
  reference: "range",
  ref: "range",
  range: "range",
  interval: "range",
  normal: "range",
  biological: "range",
  name: "skip",
};

/** The column order of a table header ("Test Result Flag Units Reference range"), or null. */
export function readColumns(line: string): Column[] | null {
  const words = line.toLowerCase().replace(/[.:|]/g, " ").split(/\s+/).filter(Boolean);
  if (words.length > 10) return null;
  const kinds: (Column | "name")[] = [];
  for (const word of words) {
    const kind = HEADER_WORDS[word];
    if (kind === undefined) return null;
    if (kind !== "skip" && kinds.at(-1) !== kind) kinds.push(kind);
  }
  const [first, ...columns] = kinds;
  if (first !== "name" || !columns.includes("value")) return null;
  if (!columns.includes("unit") && !columns.includes("range")) return null;
  return columns.filter((kind): kind is Column => kind !== "name");
}
