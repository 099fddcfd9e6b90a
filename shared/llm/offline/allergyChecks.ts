import { type Json, list, obj, str } from "./json";
import { hasLabel, linesNaming, type MedicationRef } from "./labels";
import { type Allergy, allergiesOf, allergyNames, describeAllergy, substanceStems } from "./recordItems";
import { STOPWORDS, words } from "./text";

/**
 * For each medication looked up, the allergies in the caller's imported records that concern it:
 * one whose substance the drug's names share (a word of an ingredient, brand or generic name, or
 * its RxNorm code), else one whose substance the drug's FDA label names (the amoxicillin label
 * names penicillins). Label text, not an allergy assessment: the answer says so.
 */
const RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm";

function rxcuis(ref: MedicationRef): Set<string> {
  const concepts = [...list(ref.rxnorm.ingredients), ...list(ref.rxnorm.brands)].map(obj);
  return new Set([str(ref.rxnorm.rxcui), ...concepts.map((c) => str(c.rxcui))].filter((x): x is string => !!x));
}

function sameSubstance(ref: MedicationRef, allergy: Allergy): boolean {
  const codes = rxcuis(ref);
  if (allergy.codes.some((code) => code.system === RXNORM && codes.has(code.code))) return true;
  const drug = substanceStems(ref.terms.join(" "));
  return allergyNames(allergy).some((name) => [...substanceStems(name)].some((s) => drug.has(s)));
}

/** The words a label would name the substance by, with their plural ("penicillin", "penicillins"). */
function labelTerms(allergy: Allergy): string[] {
  const names = allergyNames(allergy).flatMap((name) => words(name));
  const kept = names.filter((word) => word.length >= 4 && !STOPWORDS.has(word) && substanceStems(word).size > 0);
  return [...new Set(kept.flatMap((word) => [word, `${word}s`]))];
}

function checkOne(ref: MedicationRef, allergies: Allergy[], asked: boolean): string {
  const same = allergies.filter((allergy) => sameSubstance(ref, allergy));
  if (same.length > 0) {
    return `Allergy check for ${ref.asked}: your imported records list an allergy to ${same.map(describeAllergy).join("; ")}. Ask your doctor or pharmacist before taking it.`;
  }
  for (const allergy of hasLabel(ref) ? allergies : []) {
    const lines = linesNaming(ref, labelTerms(allergy)).slice(0, 3);
    if (lines.length > 0) {
      return [
        `Allergy check for ${ref.asked}: your imported records list an allergy to ${describeAllergy(allergy)}, and the ${ref.asked} label names it:`,
        ...lines,
        "Ask your doctor or pharmacist before taking it.",
      ].join("\n");
    }
  }
  if (!asked) return "";
  const names = allergies.map((allergy) => allergy.name).join("; ");
  return `Allergy check for ${ref.asked}: none of the allergies in your imported records (${names}) names ${ref.asked}${hasLabel(ref) ? ", and its label names none of them" : ""}. Related substances are not matched: ask a pharmacist.`;
}

/**
 * One allergy check per medication looked up, when the profile holds allergies. A medication the
 * message names (`asked`) is always reported on, found or not; another (one of the profile's) only
 * when an allergy concerns it.
 */
export function allergyChecks(refs: MedicationRef[], profile: Json, asked: readonly string[]): string[] {
  const allergies = profile.consentGiven === true ? allergiesOf(profile) : [];
  if (allergies.length === 0) return [];
  return refs.map((ref) => checkOne(ref, allergies, asked.includes(ref.asked))).filter(Boolean);
}
