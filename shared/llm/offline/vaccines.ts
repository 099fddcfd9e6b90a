import data from "../../data/vaccines/vaccines.json";
import { phrases } from "./text";
import { longestFirst } from "./vocabulary";

/**
 * Vaccines by what they protect against: a curated map from common CVX codes to antigens
 * (shared/data/vaccines), so "tetanus" finds Td, Tdap, DTaP and "Tetanus and diphtheria toxoids",
 * and "flu" finds every influenza CVX code. Names come from the antigens, the everyday names of
 * their diseases, and the abbreviations the short descriptions begin with ("Td (adult)", "IPV").
 */
export interface VaccineMention {
  /** The words of the text that named it, folded ("tetanus", "tdap", "flu"). */
  phrase: string;
  /** Its name: the antigen ("Tetanus", "Influenza") or the abbreviation ("Tdap"). */
  name: string;
  /** Antigens ("Tetanus", "Influenza"). */
  antigens: string[];
  /** A vaccine product's abbreviation ("Tdap", "MMR"), not a disease. */
  product: boolean;
}

export const CVX_SYSTEM = "http://hl7.org/fhir/sid/cvx";

/** CVX codes are written with and without a leading zero ("09", "9"). */
const cvxKey = (code: string) => code.trim().replace(/^0+(?=\d)/, "");
const CVX = new Map(data.cvx.map((entry) => [cvxKey(entry.code), entry]));

/** "Td (adult), adsorbed" → "Td"; only a short head with a capital is an abbreviation ("DTaP", "IPV"). */
function abbreviationOf(short: string): string | undefined {
  const head = short.split(/[,(]/)[0]?.trim() ?? "";
  return /^[A-Z][A-Za-z]{1,4}\d?$/.test(head) ? head : undefined;
}

function nameIndex(): Map<string, Omit<VaccineMention, "phrase">> {
  const index = new Map<string, Omit<VaccineMention, "phrase">>();
  for (const antigen of data.antigens) {
    for (const name of [antigen.name, ...antigen.names]) {
      index.set(name.toLowerCase(), { name: antigen.name, antigens: [antigen.name], product: false });
    }
  }
  for (const entry of data.cvx) {
    const abbreviation = abbreviationOf(entry.short)?.toLowerCase();
    if (!abbreviation || (index.has(abbreviation) && !index.get(abbreviation)?.product)) continue;
    // "DTaP,IPV,Hib,HepB" begins with "DTaP" too: an abbreviation stands for what all its products share.
    const before = index.get(abbreviation)?.antigens;
    const antigens = before ? entry.antigens.filter((antigen) => before.includes(antigen)) : entry.antigens;
    index.set(abbreviation, { name: abbreviationOf(entry.short) as string, antigens, product: true });
  }
  return index;
}

const NAMES = nameIndex();

/** Vaccines and vaccine-preventable diseases the text names, longest phrase first, in text order. */
export function findVaccines(text: string): VaccineMention[] {
  const found = phrases(text, 4).flatMap((phrase) => {
    const entry = NAMES.get(phrase);
    return entry ? [{ phrase, value: { phrase, ...entry } }] : [];
  });
  return [...new Map(longestFirst(text, found).map((mention) => [mention.phrase, mention])).values()];
}

export interface ImmunizationLike {
  vaccine: string;
  codes: { system?: string; code: string; display?: string }[];
  cvx?: string;
}

/**
 * The antigens an immunization protects against: from its names (its text and its codes'
 * displays) when they name any, else from its CVX codes. Names come first because real exports
 * mis-code: HL7's CCD sample codes its Td dose as CVX 103, which CDC defines as meningococcal C.
 */
export function antigensOf(item: ImmunizationLike): string[] {
  const text = [item.vaccine, ...item.codes.flatMap((code) => code.display ?? [])].join("; ");
  const named = new Set(findVaccines(text).flatMap((mention) => mention.antigens));
  if (named.size > 0) return [...named];
  const codes = [item.cvx, ...item.codes.filter((code) => code.system === CVX_SYSTEM).map((code) => code.code)];
  return [...new Set(codes.flatMap((code) => (code ? (CVX.get(cvxKey(code))?.antigens ?? []) : [])))];
}

/** How an antigen reads in a sentence: "tetanus", "yellow fever", but "HepB", "Hib", "COVID-19", "Japanese". */
export function antigenLabel(antigen: string): string {
  const kept = (word: string) => /[A-Z]/.test(word.slice(1)) || word.length <= 3 || word === "Japanese";
  return antigen
    .split(" ")
    .map((word) => (kept(word) ? word : word.toLowerCase()))
    .join(" ");
}
