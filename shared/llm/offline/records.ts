import { family, inFamily, stem, stemsOf } from "./stems";
import { STOPWORDS, words } from "./text";
import { findVaccines, type VaccineMention } from "./vaccines";

/**
 * Questions about what the person's imported health records hold: their allergies, their
 * immunizations, their conditions. Word families are matched by stem (stems.ts), so "allergic",
 * "allergies" and "allergy", or "vaccinated", "vaccines" and "immunisations", read alike.
 */
export type RecordTopic = "allergies" | "immunizations" | "conditions";

export interface RecordsAsk {
  topics: RecordTopic[];
  /** What they ask whether they are allergic to, as written: "allergic to penicillin" → "penicillin". */
  substances: string[];
  /** The vaccines, or the diseases vaccines prevent, that the message names. */
  vaccines: VaccineMention[];
}

const ALLERGY = family("allergy", "allergic", "allergen", "intolerance", "intolerant", "hypersensitivity");
const VACCINE = family("vaccine", "vaccination", "immunization", "immunisation", "immune", "inoculation", "booster");
/** Words that mean a vaccine when a vaccine is named or nothing else is ("my shots"; "my insulin shot" is not one). */
const INJECTION = family("shot", "jab");
const CONDITION = family("condition", "diagnosis", "diagnosed", "problem", "disease", "illness");
const RECORD = family("record", "file", "chart", "import");
const OWN = new Set(["my", "me", "i", "mine", "i'm", "i've", "myself"]);
/** "allergic to X", "intolerant of X". */
const TO = new Set(["to", "of", "towards", "toward"]);
/** A question or a request, not a report ("I think I'm having an allergic reaction"). */
const ASKING =
  /\?|^\s*(what|which|when|how|do|does|did|have|has|had|am|is|are|was|were|any|list|show|tell|give|check|can|could|please)\b/i;

/** "allergic to bee stings and dust" → ["bee stings", "dust"]: words after the allergy word, to the clause's end. */
function substancesAfter(list: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < list.length; i++) {
    if (!ALLERGY.has(stem(list[i] as string)) || !TO.has(list[i + 1] as string)) continue;
    let run: string[] = [];
    for (const word of list.slice(i + 2, i + 8)) {
      if (STOPWORDS.has(word) && word !== "and" && word !== "or") break;
      if (word === "and" || word === "or") {
        if (run.length) out.push(run.join(" "));
        run = [];
      } else run.push(word);
    }
    if (run.length) out.push(run.join(" "));
  }
  return out;
}

/** "penicillin allergy": a medication written just before the allergy word. */
function medicationsBefore(list: string[], medications: readonly string[]): string[] {
  return list.flatMap((word, i) => {
    if (i === 0 || !ALLERGY.has(stem(word))) return [];
    return medications.filter((name) => ` ${list.slice(0, i).join(" ")}`.endsWith(` ${name}`));
  });
}

/** "shot" or "jab" after a vaccine's name or after no other word ("my shots", "a flu jab", not "an insulin shot"). */
function vaccineInjection(list: string[], vaccines: VaccineMention[]): boolean {
  return list.some((word, i) => {
    if (!INJECTION.has(stem(word))) return false;
    const before = list[i - 1];
    return vaccines.length > 0 || before === undefined || STOPWORDS.has(before) || OWN.has(before);
  });
}

/**
 * Whether the message asks about the caller's own records, and which parts. `medications` are the
 * medication names as written in it: one written as what they may be allergic to ("allergic to
 * penicillin", "a penicillin allergy") is a substance asked about.
 */
export function recordsAsk(text: string, medications: readonly string[] = []): RecordsAsk | undefined {
  const list = words(text);
  const stems = stemsOf(text);
  const own = list.some((word) => OWN.has(word)) || inFamily(stems, RECORD);
  if (!own || !ASKING.test(text)) return undefined;
  const vaccines = findVaccines(text);
  const topics: RecordTopic[] = [];
  if (inFamily(stems, ALLERGY)) topics.push("allergies");
  const named = vaccines.some((mention) => mention.product);
  if (inFamily(stems, VACCINE) || vaccineInjection(list, vaccines) || named) topics.push("immunizations");
  if (inFamily(stems, CONDITION)) topics.push("conditions");
  if (topics.length === 0) return undefined;
  const substances = topics.includes("allergies")
    ? [...new Set([...substancesAfter(list), ...medicationsBefore(list, medications)])]
    : [];
  return { topics, substances, vaccines: topics.includes("immunizations") ? vaccines : [] };
}
