import type { ErrorDetail } from "../core/errors";
import { findAnalyte } from "./analytes";
import type { LabFlag, LabResult, LabResultInput } from "./schemas";

/**
 * One entered result as stored: trimmed, the value and its printed form filled from each other,
 * the range read from its text when no bounds are given, the LOINC code looked up from the name,
 * and the flag computed when none was given.
 */
const PLAIN_NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const NUMBER = "([-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))";
const BETWEEN = new RegExp(`^${NUMBER}\\s*(?:-|–|—|to)\\s*${NUMBER}$`, "i");
const BELOW = new RegExp(`^(?:<|<=|≤|up to)\\s*${NUMBER}$`, "i");
const ABOVE = new RegExp(`^(?:>|>=|≥)\\s*${NUMBER}$`, "i");

export type Range = { low: number | null; high: number | null };

/** The number a printed value is, when it is a plain one (`13.5`); `<0.5` or `positive` are not. */
export function numberIn(text: string): number | null {
  const trimmed = text.trim();
  return PLAIN_NUMBER.test(trimmed) ? Number(trimmed) : null;
}

/** Bounds of a printed range: `3.5–5.0`, `3.5 to 5.0`, `< 200`, `≥ 40`; else none. */
export function rangeIn(text: string): Range {
  const trimmed = text.trim();
  const between = BETWEEN.exec(trimmed);
  if (between) return { low: Number(between[1]), high: Number(between[2]) };
  const below = BELOW.exec(trimmed);
  if (below) return { low: null, high: Number(below[1]) };
  const above = ABOVE.exec(trimmed);
  if (above) return { low: Number(above[1]), high: null };
  return { low: null, high: null };
}

/** The flag a numeric value earns against its range; null without a value or a bound. */
export function flagFor(value: number | null, range: Range): LabFlag | null {
  if (value === null || (range.low === null && range.high === null)) return null;
  if (range.low !== null && value < range.low) return "low";
  if (range.high !== null && value > range.high) return "high";
  return "normal";
}

function rangeOf(input: LabResultInput["referenceRange"]): LabResult["referenceRange"] {
  const text = input?.text?.trim() ?? null;
  const given = { low: input?.low ?? null, high: input?.high ?? null };
  const bounds = given.low === null && given.high === null && text !== null ? rangeIn(text) : given;
  return { ...bounds, text };
}

/** What is wrong with one result beyond its schema, as error details under `path`. */
export function resultProblems(input: LabResultInput, path: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (input.value === undefined && input.valueText === undefined) {
    problems.push({ in: "body", path, message: "Give value, valueText or both" });
  }
  const { low, high } = rangeOf(input.referenceRange);
  if (low !== null && high !== null && low > high) {
    problems.push({ in: "body", path: `${path}/referenceRange`, message: "low is above high" });
  }
  return problems;
}

/** A result as stored; call after `resultProblems` found nothing. */
export function normalizeResult(input: LabResultInput): LabResult {
  const name = input.name.trim();
  const valueText = input.valueText?.trim() ?? String(input.value);
  const value = input.value ?? numberIn(valueText);
  const referenceRange = rangeOf(input.referenceRange);
  return {
    name,
    code: input.code ?? findAnalyte(name)?.code ?? null,
    value,
    valueText,
    unit: input.unit?.trim() ?? null,
    referenceRange,
    flag: input.flag ?? flagFor(value, referenceRange),
  };
}
