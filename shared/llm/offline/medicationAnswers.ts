import { failureSentence } from "./failures";
import type { LabelTopic, Question } from "./intent";
import { obj, str, strings } from "./json";
import {
  hasLabel,
  labelHeading,
  linesNaming,
  type MedicationRef,
  medicationRef,
  rxnormLine,
  symptomLines,
  topicLines,
} from "./labels";
import type { Done } from "./plan";
import type { Sources } from "./render";
import { type MedicationNames, medicationOf } from "./vocabulary";

/**
 * The medication part of an answer: each drug the message names, at the label section asked
 * about; then, for "my medications", label lines that name the other drug or the symptom.
 */
export const LABEL_NOT_CHECKER =
  "This is label text, not an interaction checker: a label that does not name a drug does not mean the two are safe together. Ask a pharmacist before combining medicines.";

const TOPIC_TITLES: Record<LabelTopic, string> = {
  "side-effects": "side effects and when to stop",
  dose: "dosage",
  pregnancy: "pregnancy and breastfeeding",
  warnings: "warnings",
  interactions: "interactions",
  overview: "what it is for and its main warnings",
};

function describe(ref: MedicationRef, topic: LabelTopic, sources: Sources, brand?: string): string {
  const lines = [rxnormLine(ref)];
  if (brand)
    lines.unshift(
      `${brand[0]?.toUpperCase()}${brand.slice(1)} is a brand name of ${ref.asked}; I looked up ${ref.asked}.`,
    );
  if (!hasLabel(ref)) return [...lines, `No FDA label was found for ${ref.asked}.`].join("\n");
  const url = str(obj(ref.fda.source).url);
  if (url) sources.push({ url, title: `FDA label ${str(ref.fda.setId)} (DailyMed)` });
  const quoted = topicLines(ref, topic);
  lines.push(`${labelHeading(ref)} — ${TOPIC_TITLES[topic]}:`);
  lines.push(...(quoted.length ? quoted : [`The label has no section on ${TOPIC_TITLES[topic]}.`]));
  return lines.join("\n");
}

/** Label lines of each profile medication that name the drug asked about, and the other way round. */
function crossQuotes(asked: MedicationRef, mine: MedicationRef[]): string {
  const lines = [`Your medications' labels and ${asked.asked}:`];
  if (!hasLabel(asked))
    lines.push(`No FDA label was found for ${asked.asked}, so only your medications' labels were read.`);
  for (const own of mine.filter((ref) => ref.asked !== asked.asked)) {
    const theirs = hasLabel(asked) ? linesNaming(asked, own.terms).slice(0, 3) : [];
    const ours = hasLabel(own) ? linesNaming(own, asked.terms).slice(0, 3) : [];
    if (theirs.length) lines.push(`The ${asked.asked} label names ${own.asked}:`, ...theirs);
    else if (hasLabel(asked)) lines.push(`- The ${asked.asked} label does not name ${own.asked}.`);
    if (ours.length) lines.push(`The ${own.asked} label names ${asked.asked}:`, ...ours);
    else if (hasLabel(own)) lines.push(`- The ${own.asked} label does not name ${asked.asked}.`);
    else lines.push(`- No FDA label was found for ${own.asked}, so its text could not be checked.`);
  }
  return [...lines, LABEL_NOT_CHECKER].join("\n");
}

function symptomQuotes(q: Question, mine: MedicationRef[]): string {
  const symptom = q.symptoms[0];
  if (!symptom) return "";
  const lines = [`Label lines of your medications that name ${symptom.label.toLowerCase()}:`];
  for (const own of mine) {
    const found = hasLabel(own) ? symptomLines(own, symptom.terms) : [];
    if (found.length) lines.push(`${own.asked}:`, ...found);
    else lines.push(`- ${own.asked}: ${hasLabel(own) ? "its label does not name it" : "no FDA label was found"}.`);
  }
  lines.push("A label listing a symptom means it was reported with the drug; it does not show the drug causes yours.");
  return lines.join("\n");
}

function lookups(done: readonly Done[]): { refs: MedicationRef[]; failures: string[] } {
  const refs: MedicationRef[] = [];
  const failures: string[] = [];
  for (const call of done.filter((c) => c.toolName === "get_medication_reference")) {
    if (call.isError) failures.push(failureSentence(call));
    else refs.push(medicationRef(String(call.input.name ?? ""), call.output));
  }
  return { refs, failures };
}

export function medicationAnswer(
  q: Question,
  done: readonly Done[],
  cached: MedicationNames,
  sources: Sources,
): string[] {
  const { refs, failures } = lookups(done);
  if (refs.length + failures.length === 0) return [];
  const profile = obj(done.find((c) => c.toolName === "get_health_profile" && !c.isError)?.output);
  const ownNames = new Set(strings(profile.medications).map((item) => medicationOf(item, cached)));
  const mine = refs.filter((ref) => ownNames.has(ref.asked));
  const asked = refs.filter((ref) => !ownNames.has(ref.asked) || q.medications.includes(ref.asked));
  const withMine = q.myMedications && mine.length > 0;
  const topic = withMine && asked.length > 0 && q.topic === "overview" ? "overview" : q.topic;
  for (const ref of asked) if (q.brands[ref.asked]) ref.terms.push(q.brands[ref.asked] as string);
  const out = asked.map((ref) => describe(ref, topic, sources, q.brands[ref.asked]));
  if (withMine && asked.length > 0) out.push(...asked.map((ref) => crossQuotes(ref, mine)));
  else if (withMine && q.symptoms.length > 0) out.push(symptomQuotes(q, mine));
  else if (withMine) out.push(...mine.map((ref) => describe(ref, q.topic, sources)));
  const disclaimer = str(
    obj(done.find((c) => c.toolName === "get_medication_reference" && !c.isError)?.output).disclaimer,
  );
  return [...out, ...failures, ...(disclaimer ? [disclaimer] : [])];
}
