import { allergyChecks } from "./allergyChecks";
import { describeImage, quoteFile } from "./attachments";
import { failureSentence } from "./failures";
import type { Question } from "./intent";
import { obj } from "./json";
import { historyAnswer, panelsAnswer } from "./labAnswers";
import { medicationRef } from "./labels";
import { quoteLabTable } from "./labTable";
import { actNow, closingNotes, leadingNotes, nothingToQuote } from "./limits";
import { progressAnswer, recordAnswer } from "./logAnswers";
import { medicationAnswer } from "./medicationAnswers";
import type { Done } from "./plan";
import type { Turn } from "./prompt";
import { recordsAnswer } from "./recordAnswers";
import * as render from "./render";
import type { MedicationNames } from "./vocabulary";

/**
 * The offline model's one answer: what it is, then each result quoted in a fixed order
 * (attachments, profile or what its imported records hold, logs, lab results, symptom options,
 * allergy checks, medications, conditions, papers), with sources and a safety note; with nothing to
 * quote, what it cannot answer and what it can (limits.ts).
 */
const WHAT_I_AM =
  "I am the offline reference assistant: no language model is configured on this server, so I do not write or reason freely.";
export const OFFLINE_INTRO = `${WHAT_I_AM} I looked this up with the service's tools and quote what they returned.`;
const SEE_A_PROFESSIONAL =
  "For decisions about your health or medicines, talk to a doctor or pharmacist; in an emergency call your local emergency number.";
export const SAFETY_NOTE = `This is general reference information, not medical advice. ${SEE_A_PROFESSIONAL}`;

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

/**
 * The profile as asked: what its imported records hold ("what am I allergic to?"), or the profile
 * itself ("my medications"). Read only to check a medication against allergies, it is not quoted.
 */
function profileSection(q: Question, output: ReturnType<typeof obj>, today: string): string[] {
  const records = recordsAnswer(q, output, today);
  const coveredByRecords = q.records?.topics.includes("conditions") === true;
  const asked = (q.profile || q.myMedications) && !coveredByRecords;
  return [...(asked ? [render.profile(output)] : []), ...records];
}

/**
 * The medications looked up, checked against the allergies of the profile when it was read: each
 * one the message names, and the profile's own ones that an allergy concerns.
 */
function allergySection(q: Question, done: readonly Done[]): string[] {
  const profile = done.find((call) => call.toolName === "get_health_profile" && !call.isError);
  if (!profile) return [];
  const looked = done.filter((call) => call.toolName === "get_medication_reference" && !call.isError);
  const refs = [...new Map(looked.map((call) => [String(call.input.name ?? ""), call])).entries()].map(([name, call]) =>
    medicationRef(name, call.output),
  );
  return allergyChecks(refs, obj(profile.output), q.medications);
}

const todayOf = (turn: Turn) => turn.today ?? new Date().toISOString().slice(0, 10);

function toolSections(q: Question, done: readonly Done[], sources: render.Sources, today: string): string[] {
  return done.flatMap((call) => {
    if (call.isError) return [failureSentence(call)];
    const output = obj(call.output);
    switch (call.toolName) {
      case "get_health_profile":
        return profileSection(q, output, today);
      case "list_symptom_options":
        return [render.symptomOptions(output, q)];
      case "get_condition_reference":
        // Papers that merely name a condition are offered only when papers were asked for.
        return [render.condition(output, sources, q.research)];
      case "search_papers":
        return [render.papers(output, sources, typeof call.input.query === "string" ? call.input.query : undefined)];
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
      todayOf(turn),
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
    ...allergySection(q, done),
    ...medicationAnswer(q, done, cached, sources),
    ...of("get_condition_reference"),
    ...of("search_papers"),
  ];
  const quoted = body.length > 0;
  // With nothing quoted there is no reference information to qualify; the triage advice above, when
  // it says to act now, is the one instruction left standing.
  const parts = quoted
    ? [OFFLINE_INTRO, ...leadingNotes(turn.triage), ...body, ...closingNotes(q, done, turn.triage), SAFETY_NOTE]
    : [WHAT_I_AM, ...nothingToQuote(q, turn.triage), ...(actNow(turn.triage) ? [] : [SEE_A_PROFESSIONAL])];
  const unique = [...new Map(sources.map((s) => [s.url, s])).values()];
  return { text: parts.filter(Boolean).join("\n\n"), sources: unique };
}
