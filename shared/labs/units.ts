/**
 * Lab units: printed spellings → UCUM, and conversion factors between UCUM units. A unit is parsed into a
 * magnitude in base units (g, mol, eq, L, s, U, Pa, m, osm) with its numerator and denominator kept apart,
 * so "mmol/mol" never silently equals "%" and mass ↔ substance needs the analyte's molar mass.
 */

/** Base dimension → exponent, for one side of the fraction bar. */
type Dims = Record<string, number>;

interface Parsed {
  /** Value of 1 of this unit in base units. */
  factor: number;
  num: Dims;
  den: Dims;
  /** Canonical UCUM spelling. */
  ucum: string;
}

interface Atom {
  code: string;
  dim: string | null;
  factor: number;
  prefixable: boolean;
}

const ATOMS: Record<string, Atom> = {};
function atom(aliases: string[], code: string, dim: string | null, factor = 1, prefixable = true): void {
  for (const alias of aliases) ATOMS[alias] = { code, dim, factor, prefixable };
}
atom(["g", "gm", "gram"], "g", "g");
atom(["mol"], "mol", "mol");
atom(["eq"], "eq", "eq");
atom(["osm", "osmol"], "osm", "osm");
atom(["l", "liter", "litre"], "L", "L");
atom(["u", "unit", "units"], "U", "U");
// International units and enzyme units are kept numerically equal: reports print "mU/L" and "mIU/L" alike.
atom(["iu", "[iu]"], "[IU]", "U");
atom(["kat"], "kat", "U", 6e7);
atom(["s", "sec", "secs", "second", "seconds"], "s", "s", 1, false);
atom(["min", "mins", "minute", "minutes"], "min", "s", 60, false);
atom(["h", "hr", "hrs", "hour", "hours"], "h", "s", 3600, false);
atom(["d", "day", "days"], "d", "s", 86400, false);
atom(["pa"], "Pa", "Pa");
atom(["mm[hg]", "mmhg"], "mm[Hg]", "Pa", 133.322, false);
atom(["m"], "m", "m");
atom(["%", "percent"], "%", null, 0.01, false);
atom(["[ph]", "ph"], "[pH]", "pH", 1, false);

const PREFIXES: Record<string, [string, number]> = {
  k: ["k", 1e3],
  d: ["d", 1e-1],
  c: ["c", 1e-2],
  m: ["m", 1e-3],
  u: ["u", 1e-6],
  n: ["n", 1e-9],
  p: ["p", 1e-12],
  f: ["f", 1e-15],
};

/** One term of a segment: "10*3", "24", or prefix + atom (+ exponent), case-insensitive. */
function parseTerm(term: string, dims: Dims): [string, number] | undefined {
  const power = /^10[*^](-?\d+)$/.exec(term);
  if (power) return [`10*${power[1]}`, 10 ** Number(power[1])];
  if (/^\d+$/.test(term)) return [term, Number(term)];
  const match = /^(.*?)(\d?)$/.exec(term.toLowerCase()) as RegExpExecArray;
  const [body, exponentText] = [match[1] as string, match[2] as string];
  const exponent = exponentText ? Number(exponentText) : 1;
  let found: [string, Atom] | undefined = ATOMS[body] ? ["", ATOMS[body]] : undefined;
  const prefix = PREFIXES[body.charAt(0)];
  const rest = ATOMS[body.slice(1)];
  if (!found && prefix && rest?.prefixable) found = [prefix[0], { ...rest, factor: rest.factor * prefix[1] }];
  if (!found) return undefined;
  const [prefixCode, unit] = found;
  if (unit.dim) dims[unit.dim] = (dims[unit.dim] ?? 0) + exponent;
  return [`${prefixCode}${unit.code}${exponentText}`, unit.factor ** exponent];
}

/** Splits at "/" outside parentheses and braces. */
function splitSegments(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(" || char === "{") depth++;
    if (char === ")" || char === "}") depth--;
    if (char === "/" && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  return [...parts, current];
}

/** Parses a UCUM-like string (any letter case); undefined when a term is unknown. */
export function parseUnit(text: string): Parsed | undefined {
  if (!text || /\s/.test(text)) return undefined;
  const segments = splitSegments(text);
  const parsed: Parsed = { factor: 1, num: {}, den: {}, ucum: "" };
  const out: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const notes = segment.match(/\{[^}]*\}/g) ?? [];
    let body = segment.replace(/\{[^}]*\}/g, "");
    const paren = /^\((.*)\)$/.exec(body);
    if (paren) body = paren[1] as string;
    const dims = index === 0 ? parsed.num : parsed.den;
    const codes: string[] = [];
    let factor = 1;
    for (const term of body ? body.split(".") : []) {
      const result = parseTerm(term, dims);
      if (!result) return undefined;
      codes.push(result[0]);
      factor *= result[1];
    }
    if (index > 0 && !body && notes.length === 0) return undefined;
    parsed.factor = index === 0 ? parsed.factor * factor : parsed.factor / factor;
    const joined = codes.join(".");
    out.push((paren ? `(${joined})` : joined) + notes.join(""));
  }
  parsed.ucum = out.join("/");
  return parsed;
}

const COUNT_PLACES = "(?:ul|mm3|cumm|cu mm|cmm|mcl)";
/** Printed spellings rewritten before parsing, in order. */
const RESPELL: [RegExp, string][] = [
  [/^(?:x\s*)?10\s*(?:\^|\*\*?|e)\s*(\d+)\s*\/\s*/i, "10*$1/"],
  [new RegExp(`^(?:k|thou|thousands?|k cells)\\s*\\/\\s*${COUNT_PLACES}$`, "i"), "10*3/uL"],
  [new RegExp(`^(?:m|mil|mill|millions?)\\s*\\/\\s*${COUNT_PLACES}$`, "i"), "10*6/uL"],
  [new RegExp(`^lakhs?\\s*\\/\\s*${COUNT_PLACES}$`, "i"), "10*5/uL"],
  [new RegExp(`^(?:cells?)?\\s*\\/\\s*${COUNT_PLACES}$`, "i"), "/uL"],
  [/^(?:G|Gpt|GPT)\s*\/\s*[lL]$/, "10*9/L"],
  [/^(?:T|Tpt|TPT)\s*\/\s*[lL]$/, "10*12/L"],
  [/\b(?:mm3|cumm|cu mm|cmm|mcl)\b/i, "uL"],
  [/\bmc(?=[gGlL]\b)/g, "u"],
  [/\s*(?:\/|per)\s*1[.,]73\s*m\^?2$/i, "/{1.73_m2}"],
  [/\/\s*24\s*(?:h|hr|hrs|hours?)$/i, "/(24.h)"],
  [/\/\s*1\s*(?:h|hr|hour)$/i, "/h"],
  [/\s*\(?\b(feu|ddu)\)?$/i, "{$1}"],
  [/\s+(?:creat|creatinine|crea|cr|krea)$/i, "{creat}"],
  [/\s*\((?:ngsp|ifcc|dcct)\)$|\s+(?:ngsp|ifcc|dcct)$/i, ""],
  [/^(?:ratio|\(ratio\))$/i, "{ratio}"],
  [/^inr$/i, "{INR}"],
  [/mm\s+hg/i, "mmHg"],
  [/\s*\/\s*/g, "/"],
];
const SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹";

/** Upper-cases annotation words that UCUM spells in capitals. */
function annotationCase(ucum: string): string {
  return ucum.replace(/\{(feu|ddu|inr)\}/gi, (_, word: string) => `{${word.toUpperCase()}}`);
}

/**
 * The UCUM form of a unit as printed on a report ("mg/dl" → "mg/dL", "µmol/L" → "umol/L", "x10^9/L" →
 * "10*9/L", "mIU/L" → "m[IU]/L"), or undefined when unknown.
 */
export function ucumUnit(printed: string): string | undefined {
  let text = printed
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (digits) => `^${[...digits].map((d) => SUPERSCRIPTS.indexOf(d)).join("")}`)
    .normalize("NFKC")
    .replace(/[µμ]/g, "u")
    .replace(/×/g, "x")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\((.*)\)$|^\[(.*)\]$/, "$1$2");
  for (const [pattern, replacement] of RESPELL) text = text.replace(pattern, replacement);
  if (text === "1") return "1";
  const parsed = parseUnit(text);
  return parsed ? annotationCase(parsed.ucum) : undefined;
}

function signature(parsed: Pick<Parsed, "num" | "den">): string {
  const side = (dims: Dims) =>
    Object.entries(dims)
      .filter(([, exponent]) => exponent !== 0)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([dim, exponent]) => `${dim}${exponent}`)
      .join(".");
  return `${side(parsed.num)}/${side(parsed.den)}`;
}

/** Numerator amounts in grams: eq → mol by valence, mol → g by molar mass (when known). */
function inGrams(parsed: Parsed, molarMass?: number, valence?: number): Parsed {
  const num = { ...parsed.num };
  let factor = parsed.factor;
  if (num.eq && valence) {
    factor /= valence ** num.eq;
    num.mol = (num.mol ?? 0) + num.eq;
    delete num.eq;
  }
  if (num.mol && molarMass) {
    factor *= molarMass ** num.mol;
    num.g = (num.g ?? 0) + num.mol;
    delete num.mol;
  }
  return { ...parsed, num, factor };
}

/**
 * The number to multiply a value in `from` by to express it in `to` (both UCUM or printed), or undefined when
 * the units measure different things. Mass ↔ substance needs `molarMass` (g/mol); eq ↔ mol needs `valence`.
 */
export function unitFactor(from: string, to: string, molarMass?: number, valence?: number): number | undefined {
  const a = parseUnit(ucumUnit(from) ?? from);
  const b = parseUnit(ucumUnit(to) ?? to);
  if (!a || !b) return undefined;
  if (signature(a) === signature(b)) return a.factor / b.factor;
  const [ga, gb] = [inGrams(a, molarMass, valence), inGrams(b, molarMass, valence)];
  return signature(ga) === signature(gb) ? ga.factor / gb.factor : undefined;
}
