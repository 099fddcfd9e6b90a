import { immunizationAnswer } from "./immunizationAnswers";
import type { Question } from "./intent";
import { type Json, strings } from "./json";
import { allergiesOf, conditionsOf, describeAllergy, namesAllergy } from "./recordItems";
import type { RecordTopic } from "./records";

/**
 * Answers about what the caller's imported records hold, read from the get_health_profile output:
 * their allergies (substance, reactions, criticality, the file it came from), their immunizations
 * (immunizationAnswers.ts) and their conditions. Nothing is said that the records do not hold: with
 * none recorded, the answer says so and how records are imported.
 */
export const NO_CONSENT = "You have no health profile with consent stored, so I cannot read one.";
export const NO_ALLERGIES =
  "No allergies or intolerances are recorded in your profile. They come from health records you import (a FHIR R4 Bundle or a C-CDA document); if your records list allergies, importing them adds them here. No allergy recorded here does not mean you have none.";
const ONLY_RECORDED =
  "Only what your imported records list is known here: an allergy they do not list may still exist, and related substances (another drug of the same class, for example) are not matched. Ask a doctor or pharmacist.";

function allergyAnswer(profile: Json, substances: string[]): string {
  const allergies = allergiesOf(profile);
  if (allergies.length === 0) return NO_ALLERGIES;
  const lines: string[] = [];
  for (const substance of substances) {
    const found = allergies.filter((allergy) => namesAllergy(substance, allergy));
    lines.push(
      found.length > 0
        ? `Yes: your imported records list an allergy to ${substance}: ${found.map(describeAllergy).join("; ")}.`
        : `Your imported records list no allergy to ${substance}.`,
    );
  }
  lines.push(
    `${substances.length ? "All allergies and intolerances" : "Allergies and intolerances"} in your imported records (${allergies.length}):`,
    ...allergies.map((allergy) => `- ${describeAllergy(allergy)}`),
    ONLY_RECORDED,
  );
  return lines.join("\n");
}

function conditionsAnswer(profile: Json): string {
  const typed = strings(profile.conditions);
  const imported = conditionsOf(profile);
  const lines = [`Conditions you typed in your profile: ${typed.join(", ") || "none"}.`];
  if (imported.length === 0) {
    lines.push(
      "No active conditions come from imported records (a FHIR R4 Bundle or a C-CDA document you import adds its conditions here).",
    );
  } else {
    lines.push(
      `Active conditions from your imported records (${imported.length}):`,
      ...imported.map((condition) => `- ${condition.name}, from ${condition.source}`),
    );
  }
  return lines.join("\n");
}

/** One section per part of the records asked about; `today` is YYYY-MM-DD. */
export function recordsAnswer(q: Question, profile: Json, today: string): string[] {
  const ask = q.records;
  if (!ask) return [];
  if (profile.consentGiven !== true) return [NO_CONSENT];
  const answers: Record<RecordTopic, () => string> = {
    allergies: () => allergyAnswer(profile, ask.substances),
    immunizations: () => immunizationAnswer(profile, ask.vaccines, today),
    conditions: () => conditionsAnswer(profile),
  };
  return ask.topics.map((topic) => answers[topic]());
}
