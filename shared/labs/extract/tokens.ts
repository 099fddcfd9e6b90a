/**
 * The pieces that follow a test's name on one line of report text: numbers, ranges, qualitative
 * words, units and printed flags. Every piece must end at a space or the line's end, so prose
 * ("5.2 mmol/L, which …") never scans.
 */
export type Item =
  | { kind: "number"; text: string; value: number }
  | { kind: "qualitative"; text: string }
  | { kind: "bound"; text: string; low: number | null; high: number | null }
  | { kind: "range"; text: string; low: number | null; high: number | null }
  | { kind: "flag"; text: string }
  | { kind: "unit"; text: string };

const NUM = String.raw`\d+(?:\.\d+)?`;
const END = String.raw`(?=\s|$)`;
const RANGE = new RegExp(`^(${NUM})\\s*(?:-|–|—|to)\\s*(${NUM})${END}`);
const BOUND = new RegExp(`^(<=|>=|<|>|≤|≥)\\s*(${NUM})${END}`);
const NUMBER = new RegExp(`^${NUM}${END}`);
const QUALITATIVE = new RegExp(
  `^(?:not detected|non-reactive|nonreactive|negative|positive|detected|reactive|trace|equivocal|indeterminate)${END}`,
  "i",
);
const FLAG = new RegExp(`^(?:HH|LL|H|L|A|N|HIGH|LOW|High|Low|ABN|ABNORMAL|Abnormal|CRIT|\\*)${END}`);
/** "Reference: …", "Ref. range …", "Normal range: …" in front of a range, with or without parentheses. */
const REFERENCE_LABEL = /^(?:ref(?:erence)?\.?(?:\s+(?:range|interval|value))?|normal(?:\s+range)?)\s*:?\s*/i;
/** Units without a slash that labs print; anything else must look like `a/b` with a letter in it. */
const PLAIN_UNITS = new Set(["%", "fL", "fl", "pg", "g", "mg", "U", "IU", "mU", "kU", "mmHg", "sec", "s", "ratio"]);

function isUnit(token: string): boolean {
  if (PLAIN_UNITS.has(token)) return true;
  return /^[^\s/]*\/\S+$/.test(token) && /[A-Za-zµ]/.test(token) && !/[.,;:)]$/.test(token) && !/^\(/.test(token);
}

/** "<200" bounds from above, ">60" from below. */
function bound(match: RegExpExecArray): { text: string; low: number | null; high: number | null } {
  const n = Number(match[2]);
  const below = match[1]!.startsWith("<") || match[1] === "≤";
  return { text: match[0], low: below ? null : n, high: below ? n : null };
}

/** A reference written as text: a range, a one-sided bound or a qualitative word ("Negative"). */
function readReference(text: string): Item | null {
  const trimmed = text.trim();
  const range = RANGE.exec(trimmed);
  if (range && range[0].length === trimmed.length)
    return { kind: "range", text: trimmed, low: Number(range[1]), high: Number(range[2]) };
  const one = BOUND.exec(trimmed);
  if (one && one[0].length === trimmed.length) return { kind: "range", ...bound(one) };
  const word = QUALITATIVE.exec(trimmed);
  if (word && word[0].length === trimmed.length) return { kind: "range", text: trimmed, low: null, high: null };
  return null;
}

/** A labelled reference ("(Reference: 3.5–5.0)", "Ref: <200") at the start of `rest`, and its length. */
function labelledReference(rest: string): [Item, number] | null {
  const paren = /^\(([^()]*)\)(?=\s|$)/.exec(rest);
  if (paren) {
    const inner = paren[1]!.replace(REFERENCE_LABEL, "");
    const item = readReference(inner);
    return item ? [item, paren[0].length] : null;
  }
  const label = REFERENCE_LABEL.exec(rest);
  if (!label || label[0].length === 0 || !/[a-z]/i.test(label[0])) return null;
  const after = rest.slice(label[0].length);
  const next = scanOne(after);
  if (!next || !["range", "bound", "qualitative"].includes(next[0].kind)) return null;
  const item = readReference(next[0].text);
  return item ? [item, label[0].length + next[1]] : null;
}

function scanOne(rest: string): [Item, number] | null {
  const labelled = labelledReference(rest);
  if (labelled) return labelled;
  const range = RANGE.exec(rest);
  if (range) return [{ kind: "range", text: range[0], low: Number(range[1]), high: Number(range[2]) }, range[0].length];
  const one = BOUND.exec(rest);
  if (one) return [{ kind: "bound", ...bound(one) }, one[0].length];
  const number = NUMBER.exec(rest);
  if (number) return [{ kind: "number", text: number[0], value: Number(number[0]) }, number[0].length];
  const word = QUALITATIVE.exec(rest);
  if (word) return [{ kind: "qualitative", text: word[0] }, word[0].length];
  const flag = FLAG.exec(rest);
  if (flag) return [{ kind: "flag", text: flag[0] }, flag[0].length];
  const token = /^\S+/.exec(rest)?.[0] ?? "";
  return isUnit(token) ? [{ kind: "unit", text: token }, token.length] : null;
}

/** Every piece of `text`, or null when any part of it is something else (a word, prose). */
export function scanItems(text: string): Item[] | null {
  const items: Item[] = [];
  let rest = text.trim();
  while (rest) {
    const next = scanOne(rest);
    if (!next) return null;
    items.push(next[0]);
    rest = rest.slice(next[1]).trimStart();
  }
  return items;
}

/** Whether a token is a bare number or range: such tokens never belong to a test's name. */
export function isNumeric(token: string): boolean {
  return NUMBER.test(token) || RANGE.test(token) || BOUND.test(token);
}
