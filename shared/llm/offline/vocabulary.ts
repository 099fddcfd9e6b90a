import common from "../../data/medications/common-names.json";
import acute from "../../data/symptoms/acute.json";
import custom from "../../data/symptoms/custom.json";
import pregnancy from "../../data/symptoms/pregnancy.json";
import { phrases, singular, words, writtenInCapitals } from "./text";

/**
 * What the offline model recognises in a message, from the service's own vocabularies: MONDO
 * conditions, cached medication names and lab analytes (looked up through `OfflineVocabulary`, which
 * the chat turn passes in), the shipped list of common medication names, and the symptom options.
 */
export interface OfflineVocabulary {
  /** MONDO terms whose label or exact synonym equals one of the phrases once folded. */
  conditions(phrases: readonly string[]): Promise<{ phrase: string; id: string; label: string }[]>;
  /** Names the medication reference cache holds answers for, lowercased, with their ingredient when known. */
  cachedMedications(): Promise<{ name: string; generic: string | null }[]>;
  /** Lab analytes whose name, synonym or LOINC code is one of the phrases (the shipped analyte table). */
  analytes(phrases: readonly string[]): AnalyteMention[];
}

export interface AnalyteMention {
  phrase: string;
  /** The analyte's name in the table, e.g. "HbA1c". */
  name: string;
  code: string;
}

export interface ConditionMention {
  phrase: string;
  id: string;
  label: string;
}

export type SymptomKind = "acute" | "pregnancy" | "custom";

export interface SymptomMention {
  /** The option's label, e.g. "Dizziness". */
  label: string;
  /** Option ids by log kind: the same symptom can be listed for several kinds. */
  ids: Partial<Record<SymptomKind, string>>;
  urgent: SymptomKind[];
  /** Words a label would use for it: "dizziness", "dizzy". */
  terms: string[];
}

/** Known medication names → the name to look up: a brand → its one ingredient, otherwise itself. */
export type MedicationNames = ReadonlyMap<string, string>;
const BRANDS: Record<string, string> = common.brands;
const SHIPPED: MedicationNames = new Map([
  ...common.generic.map((name) => [name, name] as const),
  ...Object.entries(BRANDS).map(([name, generic]) => [name, generic || name] as const),
]);

const merged = new WeakMap<readonly object[], MedicationNames>();

/**
 * The shipped names with the reference cache's names over them. Built once per list the cache
 * hands out (it hands out the same one until it reads again): about 4,000 names, which cost a chat
 * turn about 2 ms of CPU when they were merged on every step.
 */
export function medicationNames(cached: readonly { name: string; generic: string | null }[]): MedicationNames {
  let names = merged.get(cached);
  if (!names) {
    names = new Map([...SHIPPED, ...cached.map(({ name, generic }) => [name, generic || name] as const)]);
    merged.set(cached, names);
  }
  return names;
}

/**
 * Everyday word forms of symptom labels ("dizzy" for Dizziness): the options are nouns, people
 * write adjectives and verbs. Keyed by the option label's folded form.
 */
const FORMS: Record<string, string[]> = {
  dizziness: ["dizzy", "lightheaded", "light-headed"],
  nausea: ["nauseous", "nauseated", "queasy"],
  vomiting: ["vomit", "vomited", "throwing up", "threw up"],
  itching: ["itchy", "itch"],
  fatigue: ["tired", "exhausted", "exhaustion"],
  tiredness: ["tired"],
  cough: ["coughing", "coughs"],
  fever: ["feverish"],
  "mild fever": ["low fever", "slight fever"],
  headache: ["headaches", "head ache", "head hurts"],
  diarrhoea: ["diarrhea"],
  "skin rash": ["rash"],
  breathlessness: ["short of breath", "out of breath"],
  "shortness of breath": ["short of breath"],
  "runny nose": ["running nose"],
  "sore throat": ["throat hurts"],
};

const fold = (text: string) =>
  text
    .toLowerCase()
    .replace(/\s*\(.*?\)\s*/g, " ")
    .trim();

function symptomIndex(): Map<string, SymptomMention> {
  const index = new Map<string, SymptomMention>();
  for (const list of [acute, pregnancy, custom]) {
    const kind = list.kind as SymptomKind;
    for (const option of list.symptoms as { id: string; label: string; urgent?: boolean }[]) {
      const key = fold(option.label);
      const entry = index.get(key) ?? { label: option.label, ids: {}, urgent: [], terms: [key, ...(FORMS[key] ?? [])] };
      entry.ids[kind] = option.id;
      if (option.urgent) entry.urgent.push(kind);
      index.set(key, entry);
    }
  }
  return index;
}

const SYMPTOMS = symptomIndex();
const SYMPTOM_TERMS = new Map([...SYMPTOMS.values()].flatMap((entry) => entry.terms.map((term) => [term, entry])));

/**
 * Keeps the longest phrases and drops shorter ones inside them ("severe headache" over "headache"),
 * in the order the text says them.
 */
export function longestFirst<T>(text: string, found: { phrase: string; value: T }[]): T[] {
  const kept: { phrase: string; value: T }[] = [];
  for (const item of [...found].sort((a, b) => b.phrase.length - a.phrase.length)) {
    if (!kept.some((other) => ` ${other.phrase} `.includes(` ${item.phrase} `))) kept.push(item);
  }
  const said = ` ${words(text).join(" ")} `;
  const at = (phrase: string) => {
    const index = said.indexOf(` ${phrase} `);
    return index >= 0 ? index : said.indexOf(` ${phrase}`);
  };
  return kept.sort((a, b) => at(a.phrase) - at(b.phrase)).map((item) => item.value);
}

export function findSymptoms(text: string): SymptomMention[] {
  const found = phrases(text, 4).flatMap((phrase) => {
    const entry = SYMPTOM_TERMS.get(phrase);
    return entry ? [{ phrase, value: entry }] : [];
  });
  return [...new Set(longestFirst(text, found))];
}

export interface MedicationMention {
  /** The name written, e.g. "ambien". */
  said: string;
  /** The name looked up: the brand's ingredient, e.g. "zolpidem". */
  name: string;
}

/** Medication names in the text (shipped list and reference cache), in message order. */
export function findMedications(text: string, names: MedicationNames): MedicationMention[] {
  const found = phrases(text, 4).flatMap((phrase) => {
    const name = names.get(phrase);
    return name ? [{ phrase, value: { said: phrase, name } }] : [];
  });
  return [...new Map(longestFirst(text, found).map((m) => [m.name, m])).values()];
}

/** The medication a profile item names ("Aspirin 81 mg daily" → "aspirin"), else its first word. */
export function medicationOf(item: string, names: MedicationNames): string {
  const [found] = findMedications(item, names);
  return found?.name ?? singular(words(item)[0] ?? item.toLowerCase());
}

/** Short MONDO synonyms are mostly abbreviations: "CAN", "ALL", "GET", "BED", "FACE". */
const ABBREVIATION_MAX = 4;

/**
 * Whether the message names the condition: a short one-word synonym ("can" for
 * Crouzon syndrome-acanthosis nigricans, "all" for acute lymphoblastic leukemia) is an everyday
 * word unless written in capitals ("ALL") or it is the condition's own name ("gout").
 */
function named(text: string, mention: ConditionMention): boolean {
  const phrase = mention.phrase;
  if (phrase.includes(" ") || phrase.length > ABBREVIATION_MAX || /\d/.test(phrase)) return true;
  return fold(mention.label) === phrase || writtenInCapitals(text, phrase);
}

export async function findConditions(text: string, vocabulary: OfflineVocabulary): Promise<ConditionMention[]> {
  const found = (await vocabulary.conditions(phrases(text, 5))).filter((mention) => named(text, mention));
  return longestFirst(
    text,
    found.map((mention) => ({ phrase: mention.phrase, value: mention })),
  );
}

export function symptomByLabel(label: string): SymptomMention | undefined {
  return SYMPTOMS.get(fold(label));
}

const LABEL_BY_ID = new Map(
  [acute, pregnancy, custom].flatMap((list) => list.symptoms.map((s) => [s.id, s.label] as const)),
);

/** An entry's symptom as people read it: an option id becomes its label, free text stays. */
export const symptomLabel = (value: string) => LABEL_BY_ID.get(value) ?? value;
