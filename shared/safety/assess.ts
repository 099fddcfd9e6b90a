import { type Static, Type as T } from "@sinclair/typebox";
import { adviceFor } from "./advice";
import { CIRCULATION_PRESENTATIONS } from "./catalogueCirculation";
import { INJURY_PRESENTATIONS } from "./catalogueInjury";
import { LIFE_STAGE_PRESENTATIONS } from "./catalogueLifeStages";
import { type AssessContext, Evidence } from "./evidence";
import { generalVerdict } from "./generalRules";
import { moreUrgent, type Presentation, TRIAGE_LEVELS, type TriageLevel } from "./levels";

export type { AssessContext };
/**
 * The triage engine: one message in, a level out (docs/safety.md). It runs on every chat turn
 * before any model, reads the message with wink-nlp, matches concepts on lemmas, applies ConText
 * (negated, historical, hypothetical, family history, information requests), and asks each entry
 * of the catalogue whether it applies and at what level; a few general rules cover symptoms that
 * match no entry.
 */
export { moreUrgent, TRIAGE_LEVELS, type TriageLevel };

export const CATALOGUE: Presentation[] = [
  ...CIRCULATION_PRESENTATIONS,
  ...INJURY_PRESENTATIONS,
  ...LIFE_STAGE_PRESENTATIONS,
];

// Spelled out (not mapped from TRIAGE_LEVELS) so the type is a union of literals, not of an array.
export const LevelSchema = T.Union(
  [T.Literal("emergency"), T.Literal("urgent"), T.Literal("soon"), T.Literal("self_care"), T.Literal("none")],
  {
    description:
      "emergency: call the emergency number now; urgent: same-day care (urgent care, A&E/ER, out-of-hours); soon: see a doctor within days; self_care: look after it at home; none: not a report of current symptoms.",
  },
);

export const TriageSchema = T.Object(
  {
    level: LevelSchema,
    presentations: T.Array(
      T.Object({
        id: T.String({ description: "The catalogue entry's id, e.g. cardiac_chest_pain." }),
        label: T.String({ description: "The presentation in plain words." }),
        level: LevelSchema,
        subject: T.Union([T.Literal("self"), T.Literal("other")], {
          description: "Whether the symptoms are the writer's own or someone else's (a child, a parent…).",
        }),
      }),
      { description: "Catalogue presentations found, most urgent first." },
    ),
    reason: T.String({ description: "One plain line naming the presentations found, or why none." }),
    model: T.Optional(
      T.Object(
        { level: LevelSchema, reason: T.String() },
        {
          description:
            "The chat model's own triage of the message, when a language model was asked. `level` is the more urgent of the rules' and this: the model can raise it, never lower it.",
        },
      ),
    ),
  },
  { description: "The service's own triage of one message (docs/safety.md), whatever the model." },
);
export type Triage = Static<typeof TriageSchema>;

function reasonForNone(evidence: Evidence): string {
  const modifiers = new Set(evidence.all.flatMap((finding) => [...finding.modifiers]));
  const why: string[] = [];
  if (modifiers.has("TOPIC")) why.push("a request for information");
  if (modifiers.has("HYPOTHETICAL")) why.push("a hypothetical");
  if (modifiers.has("HISTORICAL")) why.push("past history");
  if (modifiers.has("FAMILY_HISTORY")) why.push("family history");
  if (modifiers.has("NEGATED")) why.push("symptoms said to be absent");
  if (modifiers.has("FICTION")) why.push("a story or a news report");
  return why.length > 0 ? `No current symptoms reported (${why.join(", ")}).` : "No current symptoms reported.";
}

/** Triage one message. `context` adds what the service knows about the writer (age, pregnancy). */
export function assessMessage(text: string, context: AssessContext = {}): Triage {
  return assessEvidence(new Evidence(text, context));
}

/** The catalogue's and the general rules' verdict on a message already read. */
export function assessEvidence(evidence: Evidence): Triage {
  const found = CATALOGUE.flatMap((presentation) => {
    const verdict = presentation.assess(evidence);
    if (!verdict) return [];
    const subject = evidence.subjectOf(verdict.concept, ...evidence.currentConcepts());
    return [{ presentation, verdict, subject }];
  }).sort((a, b) => TRIAGE_LEVELS.indexOf(a.verdict.level) - TRIAGE_LEVELS.indexOf(b.verdict.level));

  const presentations = found.map(({ presentation, verdict, subject }) => ({
    id: presentation.id,
    label: presentation.label,
    level: verdict.level,
    subject,
  }));
  if (found.length > 0) {
    const level = found.map((entry) => entry.verdict.level as TriageLevel).reduce(moreUrgent);
    const named = found.map(({ presentation, verdict }) => `${verdict.because} (${presentation.id}, ${verdict.level})`);
    return { level, presentations, reason: `Found: ${named.join("; ")}.` };
  }
  const general = generalVerdict(evidence);
  if (general) {
    return { level: general.level, presentations, reason: `Found ${general.because}; no emergency presentation.` };
  }
  return { level: "none", presentations, reason: reasonForNone(evidence) };
}

/** The reply's opening sentence(s) for the triage's level; null for `none`. */
export function triageAdvice(triage: Triage): string | null {
  return adviceFor(
    triage.level,
    triage.presentations.map((p) => p.id as Presentation["id"]),
  );
}

// The first few messages through a fresh process run cold (JIT, caches); a handful at load keeps the
// first chat turn as fast as the rest (about 0.2–0.3 ms of CPU a message once warm: test/bench/triageCost.ts).
for (const text of ["I can't breathe and my chest hurts", "what is the dose of paracetamol?", "my baby has a fever"]) {
  assessMessage(text);
}
