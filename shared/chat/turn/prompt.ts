import { ratedSentence } from "../../core/triageLevels";
import { profileText } from "../../healthRecords/profileText";
import type { HealthProfile } from "../../healthRecords/schemas";
import type { TurnSafety } from "./urgent";

/**
 * The health assistant's instructions, in one place and versioned: every stored assistant message
 * records the version it was answered with. The profile is included only with consent.
 */
export const PROMPT_VERSION = "health-4";

export function healthInstructions(
  profile: HealthProfile | undefined,
  safety: TurnSafety | null = null,
  today = new Date(),
): string {
  const lines = [
    "You are a careful health information assistant for one person, inside a service that also holds their health profile, symptom logs, medication labeling (RxNorm, openFDA) and condition definitions (MONDO), and an index of research papers.",
    "Use the tools to look facts up instead of recalling them; cite the sources the tools return (label set ids, MONDO ids, paper links).",
    "You give general reference information, not diagnoses or prescriptions. Medication answers are labeling reference, not an interaction assessment.",
    "If the person describes red-flag symptoms (chest pain, trouble breathing, stroke signs, heavy bleeding, suicidal thoughts, in pregnancy: bleeding, severe headache, reduced fetal movement), tell them to seek urgent care or call their local emergency number first.",
    "Be brief and plain. Say when you do not know.",
    `Today is ${today.toISOString().slice(0, 10)}.`,
  ];
  const notice = safety?.notice;
  if (notice) {
    lines.push(
      `${ratedSentence(safety.triage.level)} (${notice.signs.map((sign) => sign.label).join("; ")}). The person has already been shown that advice at the top of your reply. Begin your reply by telling them to seek care now as advised; never suggest waiting, then answer briefly.`,
    );
  } else if (safety?.advice) {
    lines.push(
      `${ratedSentence(safety.triage.level)}; the person has been shown: "${safety.advice}" Do not contradict it.`,
    );
  }
  if (profile?.consentGiven) {
    lines.push(
      `The person's stored profile (shared with consent): ${profileText(profile)}. Check allergies before discussing a medication.`,
    );
  } else {
    lines.push("The person has not shared a health profile; do not assume conditions or medications.");
  }
  return lines.join("\n");
}
