/**
 * The shipped table of common lab analytes (shared/data/labs/analytes.json, provenance beside it): LOINC code,
 * the names reports print, the canonical UCUM unit and the units each is commonly reported in.
 */
import table from "../data/labs/analytes.json";
import { ucumUnit, unitFactor } from "./units";

export { ucumUnit, unitFactor } from "./units";

export interface Analyte {
  code: string /* LOINC */;
  name: string;
  synonyms: string[];
  unit: string /* canonical UCUM */;
}

/** A unit this analyte is reported in: value in the canonical unit = value × scale + offset. */
export interface ReportedUnit {
  unit: string;
  scale: number;
  offset?: number;
  /** Set when the factor is a convention, not unit algebra (HbA1c IFCC, insulin, hematocrit L/L). */
  curated?: boolean;
}

export interface LabAnalyte extends Analyte {
  units: ReportedUnit[];
  /** g/mol, for mass ↔ substance concentration. */
  molarMass?: number;
  /** Charge, for eq ↔ mol. */
  valence?: number;
  /** Open-licensed files the LOINC code was checked against (see PROVENANCE.md). */
  checkedIn: string[];
}

export const ANALYTES: readonly LabAnalyte[] = table.analytes as LabAnalyte[];

/** Case, accents, punctuation and spacing folded; "%" and "#" kept as words ("NEUT%" ≠ "NEUT#"). */
export function foldName(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/γ/g, "gamma")
    .replace(/β/g, "beta")
    .replace(/α/g, "alpha")
    .replace(/%/g, " percent ")
    .replace(/#/g, " count ")
    .replace(/[^a-z0-9]/g, "");
}

const byCode = new Map<string, LabAnalyte>();
const byName = new Map<string, LabAnalyte>();
for (const analyte of ANALYTES) {
  byCode.set(analyte.code, analyte);
  for (const name of [analyte.name, ...analyte.synonyms]) {
    const key = foldName(name);
    if (!byName.has(key)) byName.set(key, analyte);
  }
}

/** Words around a test name that do not change which test it is ("Creatinine, serum", "S. Creatinine"). */
const QUALIFIERS = /\b(?:serum|plasma|whole blood|blood|venous|ser|s|p|level|result|test|value)\b/gi;

/** By LOINC code, name or synonym (case, punctuation and spacing folded: "HbA1c", "Hb A1c", "hemoglobin a1c"). */
export function findAnalyte(nameOrCode: string): LabAnalyte | undefined {
  const text = nameOrCode.trim();
  const code = byCode.get(text.replace(/^loinc[\s:#]*/i, ""));
  if (code) return code;
  const unbracketed = text.replace(/\([^)]*\)|\[[^\]]*\]/g, " ");
  for (const candidate of [text, unbracketed, unbracketed.replace(QUALIFIERS, " ")]) {
    const found = byName.get(foldName(candidate));
    if (found) return found;
  }
  return undefined;
}

function entryOf(analyte: Analyte | undefined): LabAnalyte | undefined {
  return analyte ? (byCode.get(analyte.code) ?? { ...analyte, units: [], checkedIn: [] }) : undefined;
}

/** Whether a value in `unit` can be expressed in this analyte's canonical unit. */
export function reportsIn(analyte: Analyte, unit: string): boolean {
  return convertValue(analyte, 1, unit, analyte.unit) !== undefined;
}

/**
 * The analyte a report line means, using its unit to tell a percentage from a count: "Neutrophils" with "%"
 * is the percentage, with "10^9/L" the absolute count.
 */
export function resolveAnalyte(name: string, unit?: string | null): LabAnalyte | undefined {
  const found = findAnalyte(name);
  if (!found || !unit || !ucumUnit(unit) || reportsIn(found, unit)) return found;
  const base = name.replace(/[%#]/g, " ").trim();
  for (const variant of [base, `${base} %`, `${base} #`]) {
    const other = findAnalyte(variant);
    if (other && reportsIn(other, unit)) return other;
  }
  return found;
}

/** Units equal but for annotations ("mg/g" and "mg/g{creat}"). */
const bare = (unit: string) => unit.replace(/\{[^}]*\}/g, "");
const listedUnit = (analyte: LabAnalyte, unit: string) =>
  analyte.units.find((entry) => entry.unit === unit) ?? analyte.units.find((entry) => bare(entry.unit) === bare(unit));

function toCanonical(analyte: LabAnalyte, value: number, unit: string): number | undefined {
  if (unit === analyte.unit) return value;
  const listed = listedUnit(analyte, unit);
  if (listed) return value * listed.scale + (listed.offset ?? 0);
  const factor = unitFactor(unit, analyte.unit, analyte.molarMass, analyte.valence);
  return factor === undefined ? undefined : value * factor;
}

function fromCanonical(analyte: LabAnalyte, value: number, unit: string): number | undefined {
  if (unit === analyte.unit) return value;
  const listed = listedUnit(analyte, unit);
  if (listed) return (value - (listed.offset ?? 0)) / listed.scale;
  const factor = unitFactor(analyte.unit, unit, analyte.molarMass, analyte.valence);
  return factor === undefined ? undefined : value * factor;
}

/**
 * `value` in `from` expressed in `to` for this analyte (molar conversions need the analyte), or undefined when
 * no conversion is known. Same unit → the value. Units may be UCUM or as printed ("mg/dl", "µmol/L").
 */
export function convertValue(
  analyte: Analyte | undefined,
  value: number,
  from: string,
  to: string,
): number | undefined {
  const source = ucumUnit(from) ?? from;
  const target = ucumUnit(to) ?? to;
  if (source === target) return value;
  const entry = entryOf(analyte);
  if (entry) {
    const canonical = toCanonical(entry, value, source);
    const result = canonical === undefined ? undefined : fromCanonical(entry, canonical, target);
    if (result !== undefined) return result;
  }
  const factor = unitFactor(source, target, entry?.molarMass, entry?.valence);
  return factor === undefined ? undefined : value * factor;
}
