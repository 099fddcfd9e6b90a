import { escapeRegExp } from "../../core/regex";
import type { Question } from "./intent";
import { phrases } from "./text";
import { type AnalyteMention, longestFirst, type OfflineVocabulary } from "./vocabulary";

/**
 * Lab questions: which analytes a message names (from the shipped analyte table, through the
 * vocabulary), whether it asks about the caller's own results, and the lab tools that answer it.
 */
export type LabIntent = "history" | "panels";

/**
 * Abbreviations of three letters or fewer are also everyday words or units ("be", "got", "mg",
 * "bun"), so they count only in capitals ("HDL") or with a digit ("A1c"); these few are no English
 * word and count as typed.
 */
const PLAIN_ABBREVIATIONS = new Set(
  "ldl hdl tsh inr psa crp esr wbc rbc ft4 ft3 ggt alp mcv mch bnp pth fsh hcg cea afp".split(" "),
);

function writtenAsAbbreviation(text: string, phrase: string): boolean {
  const bare = phrase.replace(/[^\p{L}\p{N}]/gu, "");
  if (bare.length > 3) return true;
  if (bare.length < 2) return false;
  if (PLAIN_ABBREVIATIONS.has(bare) || /\d/.test(bare)) return true;
  const escaped = escapeRegExp(phrase);
  const written = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "giu");
  return [...text.matchAll(written)].some((match) => match[0] === match[0].toUpperCase());
}

/** Analytes the message names, longest phrase first ("LDL cholesterol" over "cholesterol"), once each. */
export function findAnalytes(text: string, vocabulary: OfflineVocabulary): AnalyteMention[] {
  const found = vocabulary
    .analytes(phrases(text, 4))
    .filter((mention) => writtenAsAbbreviation(text, mention.phrase))
    .map((mention) => ({ phrase: mention.phrase, value: mention }));
  return [...new Map(longestFirst(text, found).map((mention) => [mention.code, mention])).values()];
}

const OWN = /\b(my|mine|i|i've|i'm|me)\b/;
const LAB_WORDS =
  /\b(labs?|lab (?:results?|tests?|reports?|panels?|values?|work)|blood ?(?:tests?|work|results?)|test results?|results?|levels?|readings?|values?|numbers?|going (?:up|down)|trend\w*|over time|history)\b/;
const PANELS =
  /\bmy\b[^.?!]*\b(labs|lab (?:results?|tests?|panels?|values?|work)|blood ?(?:tests?|work|results?)|test results?|results?)\b|\b(flagged|abnormal|out of range)\b[^.?!]*\b(results?|values?|tests?)\b/;
/** Analytes that "cholesterol" alone stands for in a question about one's results. */
const CHOLESTEROL = ["Total cholesterol", "LDL cholesterol", "HDL cholesterol"];

const MEDICINE = "(?:tablets?|pills?|supplements?|capsules?|injections?|infusions?|drops|doses?|dosage)";

/** "my iron tablets", "a vitamin D supplement": the name is a medicine here, not a lab test. */
function taken(lower: string, phrase: string): boolean {
  const escaped = escapeRegExp(phrase);
  return new RegExp(`\\b${escaped}\\s+${MEDICINE}\\b`).test(lower);
}

/**
 * "is my HbA1c going down?" → history of the analytes named; "show my lab results" → the panels.
 * A name that is also a medication ("iron", "potassium") needs a lab word to count.
 */
export function labIntent(
  lower: string,
  analytes: readonly AnalyteMention[],
  medications: readonly string[],
): LabIntent | undefined {
  const named = analytes.filter(
    (a) => !taken(lower, a.phrase) && (LAB_WORDS.test(lower) || !medications.includes(a.phrase)),
  );
  if (named.length > 0 && OWN.test(lower)) return "history";
  return PANELS.test(lower) && !/\battach/.test(lower) ? "panels" : undefined;
}

/** A unit the values are asked in: "in mmol/L", "as mg/dL". */
export function askedUnit(text: string): string | undefined {
  return /\b(?:in|as|to)\s+((?:[mµμunp]?(?:mol|g|eq|iu|u)|%)\/(?:[dm]?l|mmol|mol|g|24h))(?![\p{L}])/iu
    .exec(text)?.[1]
    ?.replace(/l$/i, "L")
    .replace(/μ/g, "µ");
}

/** The analytes a history question looks up: "cholesterol" alone means the usual cholesterol results. */
export function historyNames(q: Pick<Question, "analytes" | "text">): string[] {
  return q.analytes.flatMap((analyte) =>
    analyte.name === "Total cholesterol" && !/\btotal\b/i.test(q.text) ? CHOLESTEROL : [analyte.name],
  );
}
