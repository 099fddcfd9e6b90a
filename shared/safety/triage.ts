import { type Static, Type as T } from "@sinclair/typebox";
import { compiledRegExp, escapeRegExp } from "../core/regex";
import type { LogKind } from "../health/schemas";
import { listSymptomOptions } from "../health/symptoms";
import { PREGNANCY_CONTEXT, RED_FLAG_CATEGORIES, RED_FLAGS, type RedFlag, type RedFlagCategory } from "./redFlags";

/**
 * The deterministic red-flag check that runs on every chat turn before any model, and on entries
 * the chat records. It never answers: it adds an urgent notice that comes before the answer.
 */
export const UrgentSignSchema = T.Object({
  id: T.String({ description: "The red flag's id, or the symptom option's id." }),
  label: T.String(),
  category: T.String({ description: `One of: ${RED_FLAG_CATEGORIES.join(", ")}.` }),
});
export const UrgentNoticeSchema = T.Object(
  {
    signs: T.Array(UrgentSignSchema, { minItems: 1 }),
    advice: T.String({ description: "Urgent-care advice; the reply's text begins with it." }),
    source: T.Union([T.Literal("message"), T.Literal("entry")], {
      description: "The user's message, or an entry the chat just recorded.",
    }),
  },
  { description: "Red-flag signs found by the service's own check (docs/safety.md), whatever the model." },
);
export type UrgentSign = Static<typeof UrgentSignSchema>;
export type UrgentNotice = Static<typeof UrgentNoticeSchema>;

/** Words that negate a sign when they come shortly before it in the same clause. */
const NEGATION =
  /\b(?:no|not|without|never|denies|denied|don't have|do not have|doesn't have|haven't had|hasn't had|free of|negative for)\b(?:\W+\w+){0,4}\W*$/;
const CLAUSE_BREAK = /[.;!?\n]|\bbut\b|\bhowever\b|\bthough\b/g;

export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, " ");
}

/** How far back a negation may stand: a few words, so a long message costs linear time. */
const NEGATION_WINDOW = 80;

/** Whether the clause before `index` negates what starts there ("no chest pain", "not short of breath"). */
function negated(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - NEGATION_WINDOW), index);
  let start = 0;
  for (const match of before.matchAll(CLAUSE_BREAK)) start = (match.index ?? 0) + match[0].length;
  return NEGATION.test(before.slice(start));
}

/** Whether one of the alternatives occurs somewhere without a negation before it. */
function groupMatches(text: string, alternatives: string[]): boolean {
  for (const source of alternatives) {
    for (const match of text.matchAll(compiledRegExp(source, "g"))) if (!negated(text, match.index ?? 0)) return true;
  }
  return false;
}

const fires = (text: string, flag: RedFlag) => flag.groups.every((group) => groupMatches(text, group));

/** A symptom option's label said as something the person has ("I have slurred speech"). */
const SYMPTOM_CUE =
  "(?:have|having|has|had|got|with|experiencing|suffering from|feel|feeling|sudden|new|my)(?:\\s+\\w+){0,3}\\s+";

function urgentOptions(kinds: LogKind[]) {
  return kinds.flatMap((kind) =>
    listSymptomOptions({}, { kind }).symptoms.flatMap((option) => {
      if (!option.urgent) return [];
      const label = normalize(option.label.replace(/\s*\(.*\)\s*/g, " ").trim());
      const source = `${SYMPTOM_CUE}${escapeRegExp(label)}\\b`;
      return [{ id: option.id, label: option.label, source }];
    }),
  );
}

/** Red-flag signs in free text, each sign once, in the list's order. */
export function triageText(input: string): UrgentSign[] {
  const text = normalize(input);
  const signs: UrgentSign[] = RED_FLAGS.filter((flag) => fires(text, flag)).map(({ id, label, category }) => ({
    id,
    label,
    category,
  }));
  // The service's urgent symptom options catch what the red flags do not name.
  if (signs.length > 0) return signs;
  const pregnant = groupMatches(text, PREGNANCY_CONTEXT);
  for (const option of urgentOptions(pregnant ? ["acute", "custom", "pregnancy"] : ["acute", "custom"])) {
    if (groupMatches(text, [option.source]))
      signs.push({ id: option.id, label: option.label, category: "urgent_symptom" });
  }
  return dedupe(signs);
}

/** Red-flag signs in an entry: its urgent symptom options (of its log's kind), then its free text. */
export function triageEntry(entry: { symptoms: string[]; note?: string | null }, kind: LogKind): UrgentSign[] {
  const options = new Map(listSymptomOptions({}, { kind }).symptoms.map((option) => [option.id, option]));
  const chosen = entry.symptoms.flatMap((symptom) => {
    const option = options.get(symptom);
    return option?.urgent ? [{ id: option.id, label: option.label, category: "urgent_symptom" }] : [];
  });
  const written = [...entry.symptoms.filter((symptom) => !options.has(symptom)), entry.note ?? ""].join(". ");
  return dedupe([...chosen, ...triageText(written)]);
}

/** One sign per id. */
function dedupe(signs: UrgentSign[]): UrgentSign[] {
  const seen = new Set<string>();
  return signs.filter((sign) => !seen.has(sign.id) && seen.add(sign.id));
}

const EMERGENCY =
  "This can be a medical emergency. Call your local emergency number now (for example 911, 112 or 999) or go to the nearest emergency department. Do not wait for an answer here.";
const ADVICE: Partial<Record<RedFlagCategory, string>> = {
  self_harm:
    "If you might act on these thoughts or are in danger, call your local emergency number now. You can talk to someone right away: in the US call or text 988 (Suicide & Crisis Lifeline); in the UK and Ireland call Samaritans on 116 123; elsewhere, a local crisis line.",
  pregnancy:
    "In pregnancy this needs checking now: contact your maternity unit, midwife or doctor straight away, or call your local emergency number if it is severe.",
};

/** The notice for these signs, or null when there are none. */
export function urgentNotice(signs: UrgentSign[], source: UrgentNotice["source"]): UrgentNotice | null {
  if (signs.length === 0) return null;
  const categories = new Set(signs.map((sign) => sign.category));
  const lines = [
    `Please seek urgent care. You mentioned: ${signs.map((sign) => sign.label.toLowerCase()).join("; ")}.`,
  ];
  if (categories.has("self_harm")) lines.push(ADVICE.self_harm as string);
  if ([...categories].some((category) => category !== "self_harm")) lines.push(EMERGENCY);
  if (categories.has("pregnancy")) lines.push(ADVICE.pregnancy as string);
  lines.push("What follows is general information and does not replace that care.");
  return { signs, advice: lines.join(" "), source };
}
