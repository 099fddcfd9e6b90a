import { type ConceptMatch, defineConcepts, findConcepts } from "./conceptMatch";
import { CATEGORY_TERMINATORS, CONTEXT_RULES, type ContextCategory, type ContextRule } from "./contextRules";
import type { ParsedText } from "./nlp";

/**
 * The ConText algorithm (Harkema et al. 2009) over concept matches: a trigger modifies the
 * targets inside its scope, which runs forward and/or backward from it, at most `scope` tokens,
 * and ends at the sentence's end or a terminator ("but", "however", a new clause). A pseudo-trigger
 * ("no idea", "not getting better") is a phrase that contains a trigger word but is not one.
 *
 * One adaptation for lay text: a trigger word that is part of a target's own words does not modify
 * anything ("can't breathe", "won't wake up", "bleeding won't stop" are symptoms, not negations).
 */
export type Modifiers = Set<ContextCategory>;

interface Trigger {
  rule: ContextRule;
  start: number;
  end: number;
  words: number[];
}

const compiledRules = CONTEXT_RULES.map((rule, index) => ({
  rule,
  concepts: defineConcepts({ [`${rule.category}:${index}`]: rule.patterns }),
}));
const categoryTerminators = Object.fromEntries(
  Object.entries(CATEGORY_TERMINATORS).map(([category, patterns]) => [
    category,
    defineConcepts({ [category]: patterns ?? [] }),
  ]),
);
/** Words that tie a topic phrase back to the writer when just before the symptom ("what is this rash"). */
const PERSONAL = new Set(["my", "this", "i", "me", "our", "his", "her"]);

const overlaps = (a: number[], b: number[]) => a.some((word) => b.includes(word));

function findTriggers(parsed: ParsedText, targets: ConceptMatch[]) {
  const found = compiledRules.flatMap(({ rule, concepts }) =>
    findConcepts(parsed, concepts).map((match) => ({ rule, start: match.start, end: match.end, words: match.words })),
  );
  const pseudoWords = found.filter((t) => t.rule.category === "PSEUDO").flatMap((t) => t.words);
  const targetWords = targets.flatMap((target) => target.words);
  const terminators = found.filter((t) => t.rule.category === "TERMINATE");
  const triggers = found.filter(
    (t) =>
      t.rule.category !== "PSEUDO" &&
      t.rule.category !== "TERMINATE" &&
      !overlaps(t.words, pseudoWords) &&
      // A negation word inside a symptom phrase ("can't breathe") is part of the symptom.
      !(t.rule.category === "NEGATED" && overlaps(t.words, targetWords)),
  );
  return { triggers, terminators };
}

/** Token range [from, to) that a trigger governs. */
function scopeOf(trigger: Trigger, parsed: ParsedText, stops: { start: number; end: number }[]) {
  const sentence = parsed.sentences[parsed.tokens[trigger.start]?.sentence ?? 0] ?? { start: 0, end: 0 };
  const { direction, scope } = trigger.rule;
  let forwardTo = Math.min(sentence.end, trigger.end + scope);
  for (const stop of stops) if (stop.start >= trigger.end && stop.start < forwardTo) forwardTo = stop.start;
  let backwardFrom = Math.max(sentence.start, trigger.start - scope);
  for (const stop of stops) if (stop.end <= trigger.start && stop.end > backwardFrom) backwardFrom = stop.end;
  const forward = direction === "FORWARD" || direction === "BIDIRECTIONAL";
  const backward = direction === "BACKWARD" || direction === "BIDIRECTIONAL";
  // A trigger with a gap ("what temperature is") governs the words inside it too.
  return {
    from: backward ? backwardFrom : trigger.start,
    to: forward ? forwardTo : trigger.start,
  };
}

/** For each target, in order, the ConText categories that modify it. */
export function applyConText(parsed: ParsedText, targets: ConceptMatch[]): Modifiers[] {
  const { triggers, terminators } = findTriggers(parsed, targets);
  const stopsByCategory = new Map<ContextCategory, { start: number; end: number }[]>();
  for (const trigger of triggers) {
    const category = trigger.rule.category;
    if (stopsByCategory.has(category)) continue;
    const own = categoryTerminators[category];
    stopsByCategory.set(category, [...terminators, ...(own ? findConcepts(parsed, own) : [])]);
  }
  return targets.map((target) => {
    const modifiers: Modifiers = new Set();
    for (const trigger of triggers) {
      if (overlaps(trigger.words, target.words)) continue;
      const { from, to } = scopeOf(trigger, parsed, stopsByCategory.get(trigger.rule.category) ?? []);
      if (!target.words.some((word) => word >= from && word < to)) continue;
      if (trigger.rule.category === "TOPIC") {
        const first = Math.min(...target.words);
        const before = parsed.tokens.slice(Math.max(trigger.end, first - 2), first);
        if (before.some((token) => PERSONAL.has(token.text))) continue;
      }
      modifiers.add(trigger.rule.category);
    }
    return modifiers;
  });
}

/** Categories under which a target is not a report of a current symptom. */
export const NOT_CURRENT: ContextCategory[] = [
  "NEGATED",
  "HISTORICAL",
  "HYPOTHETICAL",
  "FAMILY_HISTORY",
  "TOPIC",
  "FICTION",
];
