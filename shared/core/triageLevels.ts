/**
 * The five triage levels, most to least urgent, and how a chat turn's instructions state a message's
 * level. Low in the layers because the models read it back (the offline model answers by it); the
 * triage itself is shared/safety.
 */
export const TRIAGE_LEVELS = ["emergency", "urgent", "soon", "self_care", "none"] as const;
export type TriageLevel = (typeof TRIAGE_LEVELS)[number];

/** How a chat turn's instructions state the message's level (shared/chat/turn/prompt.ts). */
export function ratedSentence(level: TriageLevel): string {
  return `The service's safety check rated this message ${level}`;
}

/** The level a chat turn's instructions state, read back. */
export function ratedLevelIn(instructions: string): TriageLevel | undefined {
  return TRIAGE_LEVELS.find((level) => instructions.includes(ratedSentence(level)));
}
