import { TRIAGE_LEVELS, type TriageLevel } from "../core/triageLevels";
import type { Evidence } from "./evidence";

export { TRIAGE_LEVELS, type TriageLevel };

/** The more urgent of two levels. */
export function moreUrgent(a: TriageLevel, b: TriageLevel): TriageLevel {
  return TRIAGE_LEVELS.indexOf(a) <= TRIAGE_LEVELS.indexOf(b) ? a : b;
}

/** Whether `level` is at least as urgent as `floor`. */
export const atLeast = (level: TriageLevel, floor: TriageLevel) =>
  TRIAGE_LEVELS.indexOf(level) <= TRIAGE_LEVELS.indexOf(floor);

export const PRESENTATION_IDS = [
  "cardiac_chest_pain",
  "stroke",
  "breathing_difficulty",
  "anaphylaxis",
  "suicide_self_harm",
  "overdose_poisoning",
  "seizure",
  "collapse_unresponsive",
  "sepsis",
  "infant_fever_newborn",
  "pregnancy_danger",
  "ectopic_pregnancy",
  "dka_hypoglycaemia",
  "gi_bleeding",
  "testicular_torsion",
  "cauda_equina",
  "head_injury",
  "severe_bleeding",
  "child_burns",
  "sudden_vision_loss",
  "carbon_monoxide",
  "aortic_dissection",
  "meningitis",
] as const;
export type PresentationId = (typeof PRESENTATION_IDS)[number];

/** A presentation's verdict on one message: its level, and the concepts that decided it. */
export interface Verdict {
  level: Exclude<TriageLevel, "none">;
  /** Plain words for the reason line ("crushing chest pain spreading to the arm"). */
  because: string;
  /** The concept whose finding names the subject (self or other). */
  concept: string;
}

/** One entry of the catalogue: what it needs, what makes it urgent or soon instead of an emergency. */
export interface Presentation {
  id: PresentationId;
  label: string;
  /** The public guidance the thresholds follow. */
  guidance: string;
  assess(evidence: Evidence): Verdict | null;
}
