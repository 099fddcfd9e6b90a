/**
 * The offline model's answers: a plain rendering of what the tool returned, with its sources and
 * a safety note, introduced by what the model is. Outputs are read defensively (`any`-free): a
 * tool's output shape is checked field by field before it is quoted.
 */

export const OFFLINE_INTRO =
  "I am the offline reference assistant: no language model is configured on this server, so I do not write or reason freely. I looked this up with a tool and quote what it returned.";
export const SAFETY_NOTE =
  "This is general reference information, not medical advice. For decisions about your health or medicines, talk to a doctor or pharmacist; in an emergency call your local emergency number.";

export interface Answer {
  text: string;
  sources: { url: string; title: string }[];
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (value && typeof value === "object" ? (value as Json) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);
const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max).trimEnd()}…` : text);

function medication(output: Json, sources: Answer["sources"]): string {
  const rx = obj(output.rxnorm);
  const fda = obj(output.fda);
  const lines: string[] = [];
  lines.push(
    rx.found === true
      ? `RxNorm: ${str(rx.name)} (RxCUI ${str(rx.rxcui)}, term type ${str(rx.tty)})${
          rx.matchedBy === "approximate" ? " — matched approximately, check the spelling" : ""
        }.`
      : "RxNorm has no concept for this name.",
  );
  if (fda.found === true) {
    const sections = obj(fda.sections);
    lines.push(`FDA label (set id ${str(fda.setId)}, effective ${str(fda.effectiveTime) ?? "unknown"}):`);
    for (const key of [
      "boxed_warning",
      "indications_and_usage",
      "contraindications",
      "warnings_and_cautions",
      "warnings",
    ]) {
      const text = str(sections[key]);
      if (text) lines.push(`- ${key.replaceAll("_", " ")}: ${clip(text)}`);
    }
    const url = str(obj(fda.source).url);
    if (url) sources.push({ url, title: `FDA label ${str(fda.setId)} (DailyMed)` });
  } else {
    lines.push("No FDA label was found for it.");
  }
  lines.push(str(output.disclaimer) ?? "");
  return lines.join("\n");
}

function condition(output: Json, sources: Answer["sources"]): string {
  const info = obj(output.info);
  const lines = [`${str(info.label) ?? "Condition"} (${str(info.id) ?? "MONDO"}).`];
  if (str(info.definition)) lines.push(clip(str(info.definition) as string, 600));
  const synonyms = list(info.synonyms).flatMap((s) => (str(obj(s).synonym) ? [str(obj(s).synonym) as string] : []));
  if (synonyms.length) lines.push(`Also called: ${synonyms.slice(0, 6).join(", ")}.`);
  const link = str(obj(info.links).monarch) ?? str(obj(info.links).purl);
  if (link) sources.push({ url: link, title: `${str(info.label)} (MONDO)` });
  const papers = list(obj(output.papers).data ?? output.papers).slice(0, 3);
  if (papers.length) lines.push("Related research:");
  for (const paper of papers.map(obj)) lines.push(...cite(paper, sources));
  return lines.join("\n");
}

function cite(paper: Json, sources: Answer["sources"]): string[] {
  const title = str(paper.title)?.replace(/\s+/g, " ");
  const url = str(obj(paper.links).abs) ?? (str(paper.id) ? `https://arxiv.org/abs/${str(paper.id)}` : undefined);
  if (!title) return [];
  if (url) sources.push({ url, title });
  return [`- ${title}${url ? ` (${url})` : ""}`];
}

function papers(output: Json, sources: Answer["sources"]): string {
  const data = list(output.data).map(obj);
  if (data.length === 0) return "I found no papers in our index matching those words.";
  return [
    `Papers in our index matching "${str(obj(output.query).text) ?? ""}":`,
    ...data.slice(0, 5).flatMap((p) => cite(p, sources)),
  ].join("\n");
}

function profile(output: Json): string {
  if (output.consentGiven !== true) return "You have no health profile with consent stored, so I cannot read one.";
  const items = (key: string) =>
    list(output[key])
      .filter((x) => typeof x === "string")
      .join(", ") || "none";
  return `Your stored profile — conditions: ${items("conditions")}; medications: ${items("medications")}.`;
}

function logs(output: Json): string {
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

function symptoms(output: Json): string {
  const items = list(output.symptoms).map(obj);
  const urgent = items.filter((s) => s.urgent === true).map((s) => str(s.label));
  return `${items.length} symptom options for ${str(output.kind)} logs${urgent.length ? `; urgent ones: ${urgent.join(", ")}` : ""}.`;
}

const RENDER: Record<string, (output: Json, sources: Answer["sources"]) => string> = {
  get_medication_reference: medication,
  get_condition_reference: condition,
  search_papers: papers,
  get_health_profile: profile,
  list_health_logs: logs,
  summarize_health_log: (o) =>
    `Log summary: ${String(o.entryCount)} entries; severity average ${String(obj(o.severity).avg ?? "–")}, trend ${String(
      obj(o.severity).trendPerDay ?? "–",
    )} per day.`,
  list_symptom_options: symptoms,
};

export function composeAnswer(
  question: string,
  results: { toolName: string; output: unknown; isError: boolean }[],
): Answer {
  const sources: Answer["sources"] = [];
  const body = results.map((result) => {
    if (result.isError) return `The lookup failed: ${typeof result.output === "string" ? result.output : "an error"}.`;
    const render = RENDER[result.toolName];
    return render ? render(obj(result.output), sources) : "";
  });
  if (results.length === 0) {
    body.push(
      `I could not match "${clip(question, 80)}" to a medication, a condition, your profile or logs, or searchable keywords. Try naming a medication or a condition.`,
    );
  }
  return { text: [OFFLINE_INTRO, ...body.filter(Boolean), SAFETY_NOTE].join("\n\n"), sources };
}
