import type { LabelTopic } from "./intent";
import { type Json, list, obj, str, strings } from "./json";
import { clip, excerpts, termPattern } from "./text";

/**
 * Medication answers from a get_medication_reference output: the RxNorm concept, the label section
 * the question asks about, and label lines that name another drug or a symptom. Quotes are label
 * text; nothing here judges an interaction.
 */
export interface MedicationRef {
  /** The name the lookup was made with. */
  asked: string;
  rxnorm: Json;
  fda: Json;
  sections: Record<string, string>;
  /** Names the label would use for this drug: ingredients, brands, generic names. */
  terms: string[];
}

const TOPIC_SECTIONS: Record<LabelTopic, string[]> = {
  "side-effects": ["adverse_reactions", "boxed_warning", "stop_use", "warnings"],
  dose: ["dosage_and_administration", "dosage_forms_and_strengths"],
  pregnancy: ["pregnancy", "use_in_specific_populations", "warnings"],
  warnings: ["boxed_warning", "contraindications", "warnings_and_cautions", "warnings", "do_not_use", "ask_doctor"],
  interactions: ["drug_interactions", "ask_doctor", "do_not_use", "warnings"],
  overview: ["boxed_warning", "indications_and_usage", "purpose", "contraindications", "warnings"],
};
/** Sections quoted around the topic's words: an OTC label's general warnings; a long adverse-reaction list. */
const focusedOn = (topic: LabelTopic, key: string) =>
  topic === "side-effects" ? key === "adverse_reactions" : key === "warnings" || key === "ask_doctor";
/** Sections short enough to quote whole for a topic; others are quoted around the topic's words. */
const TOPIC_WORDS: Partial<Record<LabelTopic, RegExp>> = {
  "side-effects": /most common\w*|commonly observed/,
  pregnancy: /pregnan\w*|breast-?feed\w*|nursing/,
  interactions: /taking|interact\w*|with other/,
};
const INTERACTION_SECTIONS = [
  "drug_interactions",
  "boxed_warning",
  "contraindications",
  "warnings_and_cautions",
  "warnings",
  "precautions",
  "do_not_use",
  "ask_doctor",
];
const SYMPTOM_SECTIONS = ["adverse_reactions", "boxed_warning", "warnings_and_cautions", "warnings", "stop_use"];

export const sectionName = (key: string) => key.replaceAll("_", " ");

export function medicationRef(asked: string, output: unknown): MedicationRef {
  const value = obj(output);
  const rxnorm = obj(value.rxnorm);
  const fda = obj(value.fda);
  const concepts = [...list(rxnorm.ingredients), ...list(rxnorm.brands)].flatMap((c) => str(obj(c).name) ?? []);
  const generic = strings(fda.genericNames).map((name) => name.split(/\s+/)[0] ?? name);
  const terms = [asked, str(rxnorm.name) ?? "", ...concepts, ...generic, ...strings(fda.brandNames)];
  const sections = Object.fromEntries(
    Object.entries(obj(fda.sections)).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
  );
  return { asked, rxnorm, fda, sections, terms: [...new Set(terms.map((t) => t.toLowerCase()).filter(Boolean))] };
}

export function rxnormLine(ref: MedicationRef): string {
  const rx = ref.rxnorm;
  if (rx.found !== true) return `RxNorm has no concept for "${ref.asked}".`;
  const approximate = rx.matchedBy === "approximate" ? " — matched approximately, check the spelling" : "";
  return `RxNorm: ${str(rx.name)} (RxCUI ${str(rx.rxcui)}, term type ${str(rx.tty)})${approximate}.`;
}

export function labelHeading(ref: MedicationRef): string {
  return `FDA label for ${ref.asked} (set id ${str(ref.fda.setId)}, effective ${str(ref.fda.effectiveTime) ?? "unknown"})`;
}

/** The label sections a topic asks for, quoted (around the topic's words when the section is long). */
export function topicLines(ref: MedicationRef, topic: LabelTopic): string[] {
  const words = TOPIC_WORDS[topic];
  const lines: string[] = [];
  for (const key of TOPIC_SECTIONS[topic]) {
    const text = ref.sections[key];
    if (!text) continue;
    const focused = words && focusedOn(topic, key) ? excerpts(text, words, 2, 300).join(" ") : "";
    // General warnings that never speak to the topic are left out; other sections are quoted from the start.
    if (!focused && words && focusedOn(topic, key) && key !== "adverse_reactions") continue;
    lines.push(`- ${sectionName(key)}: "${focused || clip(text, topic === "overview" ? 300 : 600)}"`);
    if (lines.length >= 3) break;
  }
  return lines;
}

/** Label lines of `label` that name any of `terms`, by section. */
export function linesNaming(label: MedicationRef, terms: readonly string[], sections = INTERACTION_SECTIONS): string[] {
  const pattern = termPattern(terms);
  if (!pattern) return [];
  return sections.flatMap((key) => {
    const text = label.sections[key];
    const found = text ? excerpts(text, pattern, 2) : [];
    return found.map((quote) => `- ${sectionName(key)}: "${quote}"`);
  });
}

export function symptomLines(label: MedicationRef, terms: readonly string[]): string[] {
  return linesNaming(label, terms, SYMPTOM_SECTIONS).slice(0, 3);
}

export const hasLabel = (ref: MedicationRef) => ref.fda.found === true;
