import type { Question } from "./intent";
import { type Json, list, obj, str, strings } from "./json";
import { allergiesOf, conditionsOf, immunizationsOf, medicationsOf } from "./recordItems";
import { clip } from "./text";

/** Plain renderings of the non-medication tools' outputs, each with the sources it quotes. */
export type Sources = { url: string; title: string }[];

/** A MONDO term; with `withPapers`, the papers of our index that name it (a match on words, not a judgement). */
export function condition(output: Json, sources: Sources, withPapers = false): string {
  const info = obj(output.info);
  const lines = [`${str(info.label) ?? "Condition"} (${str(info.id) ?? "MONDO"}).`];
  if (str(info.definition)) lines.push(clip(str(info.definition) as string, 600));
  const synonyms = list(info.synonyms).flatMap((s) => str(obj(s).synonym) ?? []);
  if (synonyms.length) lines.push(`Also called: ${synonyms.slice(0, 6).join(", ")}.`);
  const parents = list(info.parents).flatMap((p) => str(obj(p).label) ?? []);
  if (parents.length) lines.push(`A kind of: ${parents.slice(0, 3).join(", ")}.`);
  const link = str(obj(info.links).monarch) ?? str(obj(info.links).purl);
  if (link) sources.push({ url: link, title: `${str(info.label)} (MONDO)` });
  if (!withPapers) return lines.join("\n");
  const naming = list(obj(output.papers).data ?? output.papers).slice(0, 3);
  lines.push(naming.length ? "Papers in our index that name it:" : "Our paper index has no papers naming it.");
  for (const paper of naming.map(obj)) lines.push(...cite(paper, sources));
  return lines.join("\n");
}

function cite(paper: Json, sources: Sources): string[] {
  const title = str(paper.title)?.replace(/\s+/g, " ");
  const url = str(obj(paper.links).abs) ?? (str(paper.id) ? `https://arxiv.org/abs/${str(paper.id)}` : undefined);
  if (!title) return [];
  if (url) sources.push({ url, title });
  return [`- ${title}${url ? ` (${url})` : ""}`];
}

/** Papers the search returned; when it had to drop words of the query to find any, it says so. */
export function papers(output: Json, sources: Sources, asked?: string): string {
  const data = list(output.data).map(obj);
  const query = str(obj(output.query).text) ?? "";
  if (data.length === 0) return `I found no papers in our index matching "${asked ?? query}".`;
  const heading =
    obj(output.query).widened === true && asked
      ? `No paper in our index matches all of "${asked}"; these match "${query}":`
      : `Papers in our index matching "${query}":`;
  return [heading, ...data.slice(0, 5).flatMap((p) => cite(p, sources))].join("\n");
}

/** What imported records add to the profile, in one sentence; nothing when they add nothing. */
function imported(output: Json): string {
  const allergies = allergiesOf(output).map(
    (a) => `${a.name}${a.reactions.length ? ` (${a.reactions.join(", ")})` : ""}`,
  );
  const conditions = conditionsOf(output).map((c) => c.name);
  const medications = medicationsOf(output).map((m) => m.name);
  const doses = immunizationsOf(output).length;
  if (allergies.length + conditions.length + medications.length + doses === 0) return "";
  const named = (items: string[]) => items.join("; ") || "none";
  return `From your imported records — allergies: ${named(allergies)}; active conditions: ${named(conditions)}; active medications: ${named(medications)}; immunizations: ${doses} doses on record (ask about a vaccine for its dates).`;
}

export function profile(output: Json): string {
  if (output.consentGiven !== true) return "You have no health profile with consent stored, so I cannot read one.";
  const items = (key: string) => strings(output[key]).join(", ") || "none";
  const typed = `Your stored profile — conditions: ${items("conditions")}; medications: ${items("medications")}.`;
  return [typed, imported(output)].filter(Boolean).join("\n");
}

export function logList(output: Json): string {
  const trackers = list(output.trackers).map(obj);
  if (output.consentGiven !== true) return "Health logs need consent; none can be read.";
  if (trackers.length === 0) return "You have no health logs yet.";
  return [
    "Your newest health logs:",
    ...trackers.map(
      (t) => `- ${str(t.title)} (${str(t.kind)}, ${str(t.status)}, ${String(t.entryCount ?? 0)} entries)`,
    ),
  ].join("\n");
}

export function symptomOptions(output: Json, q: Question): string {
  const items = list(output.symptoms).map(obj);
  const kind = str(output.kind) ?? "acute";
  const urgent = items.filter((s) => s.urgent === true).map((s) => str(s.label));
  const named = q.symptoms.map((s) => `${s.label}${s.urgent.includes(kind as never) ? " (urgent)" : ""}`);
  const lines: string[] = [];
  if (q.symptomOptions) {
    const labels = items.slice(0, 40).map((s) => str(s.label));
    lines.push(
      `The symptom options for ${kind} logs (${items.length}), the same choices the website offers: ${labels.join(", ")}${items.length > 40 ? ", …" : ""}.`,
    );
  }
  if (named.length) lines.push(`Your message names these symptom options of ${kind} logs: ${named.join(", ")}.`);
  if (urgent.length)
    lines.push(`Options marked urgent for ${kind} logs (a reason to seek care now): ${urgent.join(", ")}.`);
  if (q.symptomOptions && /\b(track|monitor|watch)\b/i.test(q.text) && q.conditions.length === 0) {
    lines.push("The service keeps one list per log kind, not one per illness; pick the ones you have.");
  }
  return lines.join("\n");
}
