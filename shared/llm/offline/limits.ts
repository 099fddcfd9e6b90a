import type { TriageLevel } from "../../core/triageLevels";
import type { Question } from "./intent";
import type { Done } from "./plan";

/**
 * What the offline model says about what it cannot do: a question its tools cannot answer is
 * answered by saying so and by what it can do, never by a lookup on a guess; and the service's
 * own triage advice, which the reply opens with, is pointed to, never contradicted.
 */

/** The triage levels the turn's instructions name (docs/safety.md), most urgent first. */
export type Level = TriageLevel;

export const CANNOT_ANSWER =
  "I cannot answer that from the service's data: your message names no medication, condition, lab test or record of yours that I can look up, and I do not answer general health questions from memory.";
export const CAN_DO =
  'What I can do: look up a medication\'s FDA label ("what is the usual dose of aspirin?"), a condition\'s entry in MONDO ("what is asthma?"), read your health logs or lab history ("is my HbA1c going down?"), say what your imported health records list ("what am I allergic to?", "when was my last tetanus shot?"), and search research papers when you ask for them ("papers on sleep and memory").';
const NO_TOPIC =
  'Tell me the topic to search the papers for, for example "papers on sleep and memory"; I search only the topic you name.';
const ADVICE_ABOVE = "The safety check's advice above is the service's answer to what you described; follow it.";
const FOLLOW_NOW =
  "Please follow the safety check's advice above now: the people you reach there can help you right away. I am a lookup tool, not a person or a clinician, so I cannot help with this myself.";
const FIRST = "Follow the safety check's advice above first; what follows is reference information only.";
const LAB_MEANING =
  "I cannot tell you what a result means for you: I quote your stored values with the reference range and flag the lab reported. A doctor can explain them in the light of your health.";
const SYMPTOMS_ONLY =
  "I cannot answer the question itself from the service's data: these are the symptom options you can record in a health log.";

const MEANING =
  /\b(mean|means|meaning|explain\w*|interpret\w*|normal|worr(?:y|ied)|bad|good|ok|okay|dangerous|concern\w*)\b/i;
const QUESTION =
  /\?\s*$|^\s*(what|how|why|when|where|which|who|is|are|was|do|does|did|can|could|should|would|will|may|might)\b/i;

/** The advice above says to get care now (emergency or same day). */
export const actNow = (level: Level | undefined) => level === "emergency" || level === "urgent";
const advised = (level: Level | undefined) => level === "soon" || level === "self_care";

/** The answer when no tool ran and nothing was attached. */
export function nothingToQuote(q: Question, level: Level | undefined): string[] {
  if (actNow(level)) return [FOLLOW_NOW];
  if (q.research) return [NO_TOPIC];
  return [CANNOT_ANSWER, CAN_DO, ...(advised(level) ? [ADVICE_ABOVE] : [])];
}

/** What goes before the quoted results: the triage advice comes first when it says to act now. */
export function leadingNotes(level: Level | undefined): string[] {
  return actNow(level) ? [FIRST] : [];
}

/** What the quoted results do not answer: what a lab value means; a question about symptoms. */
export function closingNotes(q: Question, done: readonly Done[], level: Level | undefined): string[] {
  const notes: string[] = [];
  if (q.labs && MEANING.test(q.text)) notes.push(LAB_MEANING);
  const symptomsOnly = done.length > 0 && done.every((call) => call.toolName === "list_symptom_options");
  if (symptomsOnly && !q.symptomOptions && QUESTION.test(q.text)) {
    notes.push(SYMPTOMS_ONLY, ...(advised(level) ? [ADVICE_ABOVE] : []));
  }
  return notes;
}
