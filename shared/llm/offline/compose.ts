import { describeImage, quoteFile } from "./attachments";
import { failureSentence } from "./failures";
import type { Question } from "./intent";
import { obj } from "./json";
import { historyAnswer, panelsAnswer } from "./labAnswers";
import { quoteLabTable } from "./labTable";
import { progressAnswer, recordAnswer } from "./logAnswers";
import { medicationAnswer } from "./medicationAnswers";
import type { Done } from "./plan";
import type { Turn } from "./prompt";
import * as render from "./render";
import { clip } from "./text";
import type { MedicationNames } from "./vocabulary";

/**
 * The offline model's one answer: what it is, then each result quoted in a fixed order
 * (attachments, profile, logs, lab results, symptom options, medications, conditions, papers), with sources
 * and a safety note.
 */
export const OFFLINE_INTRO =
  "I am the offline reference assistant: no language model is configured on this server, so I do not write or reason freely. I looked this up with the service's tools and quote what they returned.";
export const SAFETY_NOTE =
  "This is general reference information, not medical advice. For decisions about your health or medicines, talk to a doctor or pharmacist; in an emergency call your local emergency number.";

export interface Answer {
  text: string;
  sources: render.Sources;
}

function logSection(q: Question, done: readonly Done[]): string[] {
  const logs = done.find((c) => c.toolName === "list_health_logs");
  if (!logs) return [];
  if (logs.isError) return [failureSentence(logs)];
  const pick = (name: string) => done.find((c) => c.toolName === name);
  if (q.logs === "record") return [recordAnswer(q, logs.output, pick("add_health_log_entry"))];
  if (q.logs === "progress") {
    const summary = pick("summarize_health_log");
    if (summary?.isError) return [failureSentence(summary)];
    return [progressAnswer(q, logs.output, summary?.output)];
  }
  return [render.logList(obj(logs.output))];
}

function toolSections(q: Question, done: readonly Done[], sources: render.Sources): string[] {
  return done.flatMap((call) => {
    if (call.isError) return [failureSentence(call)];
    const output = obj(call.output);
    switch (call.toolName) {
      case "get_health_profile":
        return [render.profile(output)];
      case "list_symptom_options":
        return [render.symptomOptions(output, q)];
      case "get_condition_reference":
        return [render.condition(output, sources)];
      case "search_papers":
        return [render.papers(output, sources)];
      case "list_lab_panels":
        return [panelsAnswer(output)];
      case "get_lab_history":
        return [historyAnswer(output)];
      default:
        return [];
    }
  });
}

export function composeAnswer(q: Question, turn: Turn, cached: MedicationNames): Answer {
  const sources: render.Sources = [];
  const { done, attachments } = turn;
  const of = (name: string) =>
    toolSections(
      q,
      done.filter((call) => call.toolName === name),
      sources,
    );
  const body = [
    ...attachments.images.map(describeImage),
    ...attachments.labTables.map(quoteLabTable),
    ...attachments.files.map((file) => quoteFile(file)),
    ...of("get_health_profile"),
    ...logSection(q, done),
    ...of("list_lab_panels"),
    ...of("get_lab_history"),
    ...of("list_symptom_options"),
    ...medicationAnswer(q, done, cached, sources),
    ...of("get_condition_reference"),
    ...of("search_papers"),
  ];
  if (body.length === 0) {
    body.push(
      `I could not match "${clip(q.text, 80)}" to a medication, a condition, a symptom, your profile, logs or lab results, or searchable keywords. Try naming a medication or a condition.`,
    );
  }
  const unique = [...new Map(sources.map((s) => [s.url, s])).values()];
  return { text: [OFFLINE_INTRO, ...body.filter(Boolean), SAFETY_NOTE].join("\n\n"), sources: unique };
}
