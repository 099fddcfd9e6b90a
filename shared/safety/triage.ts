import { type Static, Type as T } from "@sinclair/typebox";
import type { LogKind } from "../health/schemas";
import { listSymptomOptions } from "../health/symptoms";
import { adviceFor } from "./advice";
import { assessMessage } from "./assess";
import { atLeast, moreUrgent, type PresentationId, type TriageLevel } from "./levels";

/**
 * The notice of a chat reply from `urgent` up (the `urgent` field and the `data-urgent` part), and
 * the check of an entry the chat records: its urgent symptom options (of its log's kind) and what
 * the engine finds in its written words. A message's notice is derived from its triage
 * (shared/chat/turn/urgent.ts); an entry's is built here.
 */
export const UrgentSignSchema = T.Object({
  id: T.String({ description: "The catalogue presentation's id, or the symptom option's id." }),
  label: T.String(),
  category: T.String({
    description:
      "The catalogue presentation's id (docs/safety.md), `urgent_symptom` for one of the service's urgent symptom options, or `general`.",
  }),
});
export const UrgentNoticeSchema = T.Object(
  {
    signs: T.Array(UrgentSignSchema, { minItems: 1 }),
    advice: T.String({ description: "The advice for the level; the reply's text begins with it." }),
    source: T.Union([T.Literal("message"), T.Literal("entry")], {
      description: "The user's message, or an entry the chat just recorded.",
    }),
  },
  {
    description:
      "Signs that need care today or now, found by the service's own triage (docs/safety.md), whatever the model.",
  },
);
export type UrgentSign = Static<typeof UrgentSignSchema>;
export type UrgentNotice = Static<typeof UrgentNoticeSchema>;

const URGENT_OPTION = "urgent_symptom";

/** An entry's signs and the most urgent level among them (none when it has no sign). */
export interface EntryTriage {
  signs: UrgentSign[];
  level: TriageLevel;
}

/**
 * Signs in an entry: its urgent symptom options, then presentations from `urgent` up in its written
 * words. The service's urgent symptom options are red flags (chest pain, trouble breathing, …), so
 * one of them rates the entry `emergency`, as a presentation found at `emergency` does.
 */
export function triageEntry(entry: { symptoms: string[]; note?: string | null }, kind: LogKind): EntryTriage {
  const options = new Map(listSymptomOptions({}, { kind }).symptoms.map((option) => [option.id, option]));
  const chosen = entry.symptoms.flatMap((symptom) => {
    const option = options.get(symptom);
    return option?.urgent ? [{ id: option.id, label: option.label, category: URGENT_OPTION }] : [];
  });
  const written = [...entry.symptoms.filter((symptom) => !options.has(symptom)), entry.note ?? ""].join(". ");
  const found = assessMessage(written, kind === "pregnancy" ? { pregnant: true } : {}).presentations.filter(
    (presentation) => atLeast(presentation.level, "urgent"),
  );
  const seen = new Set<string>();
  const signs = [...chosen, ...found.map(({ id, label }) => ({ id, label, category: id }))].filter(
    (sign) => !seen.has(sign.id) && seen.add(sign.id),
  );
  const levels: TriageLevel[] = [...found.map((presentation) => presentation.level as TriageLevel)];
  if (chosen.length > 0) levels.push("emergency");
  return { signs, level: levels.reduce(moreUrgent, "none") };
}

/** The notice for an entry's triage, or null when it found no sign; in pregnancy it adds the maternity unit. */
export function entryNotice(triage: EntryTriage, kind: LogKind): UrgentNotice | null {
  if (triage.signs.length === 0) return null;
  const presentations = triage.signs
    .filter((sign) => sign.category !== URGENT_OPTION)
    .map((sign) => sign.id as PresentationId);
  if (kind === "pregnancy") presentations.push("pregnancy_danger");
  const advice = adviceFor(triage.level, presentations) ?? "";
  return { signs: triage.signs, advice, source: "entry" };
}
