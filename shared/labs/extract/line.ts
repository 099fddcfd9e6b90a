import { flagFor } from "../results";
import type { LabFlag } from "../schemas";
import { type Item, isNumeric, scanItems } from "./tokens";
import type { ParsedResult } from "./types";

/** A column of a result row after the test's name. */
export type Column = "value" | "flag" | "unit" | "range";

/**
 * The order rows follow when the report prints no column header: value first, as in
 * "Hemoglobin 13.5 g/dL 12.0–15.5 L" and "Glucose: 5.4 mmol/L (Reference: 3.5–5.0)". A flag may
 * sit right after the value or at the end.
 */
export const DEFAULT_COLUMNS: Column[] = ["value", "flag", "unit", "range", "flag"];

const ACCEPTS: Record<Column, Item["kind"][]> = {
  value: ["number", "qualitative", "bound"],
  flag: ["flag"],
  unit: ["unit"],
  range: ["range", "bound", "qualitative"],
};

/** Words of prose: a "name" holding one is a sentence, not a test. */
const PROSE = new Set(
  "an and are as at be by for from is of or our than that the this to was we were which with your you".split(" "),
);
const MAX_NAME_WORDS = 8;

export type Row = Omit<ParsedResult, "page">;
type Placed = Partial<Record<Column, Item>>;

/**
 * Places each item in the next column that accepts it, skipping empty cells; backtracks so that a
 * qualitative word fits the value when the range cell is empty. The value is required.
 */
function place(items: Item[], columns: Column[], from = 0, placed: Placed = {}): Placed | null {
  const [item, ...rest] = items;
  if (!item) return placed.value ? placed : null;
  for (let c = from; c < columns.length; c++) {
    const column = columns[c]!;
    if (placed[column] || !ACCEPTS[column].includes(item.kind)) continue;
    const found = place(rest, columns, c + 1, { ...placed, [column]: item });
    if (found) return found;
  }
  return null;
}

function isName(words: string[]): boolean {
  const name = words.join(" ");
  if (name.length > 80 || !/[A-Za-z].*[A-Za-z]/.test(name) || !/^[A-Za-z0-9]/.test(name)) return false;
  if (name.slice(0, -1).includes(":")) return false;
  return words.every((word) => !isNumeric(word) && !PROSE.has(word.toLowerCase().replace(/:$/, "")));
}

const PRINTED: Record<string, LabFlag> = {
  H: "high",
  HH: "high",
  HIGH: "high",
  L: "low",
  LL: "low",
  LOW: "low",
  N: "normal",
  A: "abnormal",
  ABN: "abnormal",
  ABNORMAL: "abnormal",
  CRIT: "abnormal",
};

/** The printed flag wins; a bare "*" only marks the value as out of range, so its side is computed. */
function flagOf(printed: string | undefined, value: number | null, low: number | null, high: number | null) {
  if (printed === undefined) return flagFor(value, { low, high });
  if (printed === "*") {
    const side = flagFor(value, { low, high });
    return side === "low" || side === "high" ? side : "abnormal";
  }
  return PRINTED[printed.toUpperCase()] ?? null;
}

function toRow(name: string, placed: Placed): Row | null {
  const { value, unit, range, flag } = placed;
  if (!value || (value.kind !== "qualitative" && !unit && !range)) return null;
  const number = value.kind === "number" ? value.value : null;
  const { low, high } = range?.kind === "range" || range?.kind === "bound" ? range : { low: null, high: null };
  return {
    name,
    valueText: value.text,
    value: number,
    unit: unit?.text ?? null,
    referenceRange: { low, high, text: range?.text ?? null },
    flag: flagOf(flag?.text, number, low, high),
  };
}

/**
 * One result from one line, or null when the line is not one. The name is the shortest run of
 * leading words after which the rest reads as columns in `columns` order; a number needs a unit or a
 * range beside it, so "MRN: 00412345" or "Page 1 of 2" are not results.
 */
export function parseRow(line: string, columns: Column[]): Row | null {
  const words = line.split(" ");
  for (let k = 1; k < words.length && k <= MAX_NAME_WORDS; k++) {
    const nameWords = words.slice(0, k);
    if (!isName(nameWords)) continue;
    const items = scanItems(words.slice(k).join(" "));
    const placed = items && place(items, columns);
    const row = placed && toRow(nameWords.join(" ").replace(/:$/, ""), placed);
    if (row) return row;
  }
  return null;
}
