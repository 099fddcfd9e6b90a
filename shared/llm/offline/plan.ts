import { fallbackCondition, fallbackMedication } from "./fallback";
import type { Question } from "./intent";
import { obj, strings } from "./json";
import { historyNames } from "./labs";
import { entryFor, logsOf, progressLog, recordTarget } from "./logs";
import { keywords } from "./text";
import { type MedicationNames, medicationOf } from "./vocabulary";

/**
 * Which tools a question needs: everything it names in the first step (a drug and the caller's
 * profile; a condition and its research; lab results), then what those results make necessary (each profile
 * medication's label; the log to summarise or record in). Nothing left to call → answer.
 */
export interface ToolCall {
  toolName: string;
  input: Record<string, unknown>;
}

export interface Done extends ToolCall {
  output: unknown;
  isError: boolean;
}

/** Lookups per kind in one turn: enough for everyday questions, bounded for long texts. */
const MAX_MEDICATIONS = 3;
const MAX_PROFILE_MEDICATIONS = 5;
const MAX_CONDITIONS = 2;
const MAX_ANALYTES = 4;

const key = (call: ToolCall) => `${call.toolName} ${JSON.stringify(call.input)}`;

function collector(available: ReadonlySet<string>, done: readonly ToolCall[] = []) {
  const calls: ToolCall[] = [];
  const seen = new Set(done.map(key));
  const add = (toolName: string, input: Record<string, unknown>) => {
    const call = { toolName, input };
    if (!available.has(toolName) || seen.has(key(call))) return;
    seen.add(key(call));
    calls.push(call);
  };
  return { calls, add };
}

/** The topic the person asked papers on; "them" or "it" stands for what the message names. */
function researchQuery(q: Question): string | undefined {
  if (!q.research) return undefined;
  const topic = keywords(q.researchTopic ?? "", 6).join(" ");
  return topic || q.conditions[0]?.phrase || q.medications[0];
}

type Add = (toolName: string, input: Record<string, unknown>) => void;

/** The caller's lab results a question asks about: analytes' histories, or the newest panels. */
function labCalls(q: Question, add: Add): void {
  if (q.labs === "panels") add("list_lab_panels", { limit: 5 });
  if (q.labs !== "history") return;
  for (const name of historyNames(q).slice(0, MAX_ANALYTES)) {
    add("get_lab_history", q.labUnit ? { name, unit: q.labUnit } : { name });
  }
}

/**
 * Names that stand for something other than a medicine or condition to look up: a lab question's
 * analyte ("iron", "vitamin D"), what an allergy question asks about ("allergic to penicillin"), a
 * vaccine question's disease ("my flu shot").
 */
function notLookedUp(q: Question): Set<string> {
  const names = q.labs === "history" ? q.analytes.map((a) => a.phrase) : [];
  const substances = q.records?.substances ?? [];
  const vaccines = q.records?.vaccines.map((mention) => mention.phrase) ?? [];
  return new Set([...names, ...substances, ...vaccines]);
}

/**
 * The first step's calls. `allergiesOnFile`: the instructions say the profile lists allergies, so a
 * medication question reads the profile too, to check the drug against them.
 */
export function firstCalls(
  q: Question,
  available: ReadonlySet<string>,
  attached = false,
  allergiesOnFile = false,
): ToolCall[] {
  const { calls, add } = collector(available);
  const skip = notLookedUp(q);
  const medications =
    q.logs === "record" ? [] : q.medications.filter((name) => !skip.has(name) && !skip.has(q.brands[name] ?? ""));
  if (q.logs) add("list_health_logs", { limit: q.logs === "list" ? 5 : 20 });
  if (q.profile || q.myMedications || q.records || (allergiesOnFile && medications.length > 0)) {
    add("get_health_profile", {});
  }
  if (q.symptomOptions) add("list_symptom_options", { kind: q.kind });
  labCalls(q, add);
  for (const name of medications.slice(0, MAX_MEDICATIONS)) add("get_medication_reference", { name });
  if (!q.symptomOptions && !q.logs) {
    const conditions = q.conditions.filter((condition) => !skip.has(condition.phrase));
    for (const condition of conditions.slice(0, MAX_CONDITIONS)) add("get_condition_reference", { q: condition.label });
  }
  const query = q.logs ? undefined : researchQuery(q);
  if (query) add("search_papers", { query });
  // With an attachment, a bare "what is this?" is about the file: no guessing from its words.
  if (attached) return calls;
  // Symptoms alone: the options say which of them the service marks urgent.
  if (calls.length === 0 && q.symptoms.length > 0) add("list_symptom_options", { kind: q.kind });
  if (calls.length === 0) fallbackCalls(q, add);
  return calls;
}

/**
 * A medication or condition the message writes as one that the vocabularies missed. Nothing else:
 * a question that names nothing is answered by saying so, not by searching its words.
 */
function fallbackCalls(q: Question, add: Add): void {
  const medication = fallbackMedication(q.text);
  const condition = medication ? undefined : fallbackCondition(q.text);
  if (medication) add("get_medication_reference", { name: medication });
  else if (condition) add("get_condition_reference", { q: condition });
}

/** A question about the caller's medications that their labels answer (not "what are my medications"). */
function needsProfileLabels(q: Question): boolean {
  return q.myMedications && (q.medications.length > 0 || q.topic !== "overview" || q.symptoms.length > 0);
}

export function followUpCalls(
  q: Question,
  done: readonly Done[],
  available: ReadonlySet<string>,
  cached: MedicationNames,
): ToolCall[] {
  const { calls, add } = collector(available, done);
  const result = (toolName: string) => done.find((call) => call.toolName === toolName && !call.isError)?.output;
  const profile = obj(result("get_health_profile"));
  if (needsProfileLabels(q) && profile.consentGiven === true) {
    const names = strings(profile.medications).map((item) => medicationOf(item, cached));
    for (const name of names.slice(0, MAX_PROFILE_MEDICATIONS)) add("get_medication_reference", { name });
  }
  const logs = result("list_health_logs");
  if (logs !== undefined && q.logs === "progress") {
    const log = progressLog(q, logsOf(logs));
    if (log) add("summarize_health_log", { trackerId: log.id });
  }
  if (logs !== undefined && q.logs === "record") {
    const target = recordTarget(q, logsOf(logs));
    const entry = "log" in target ? entryFor(q, target.log) : undefined;
    if ("log" in target && entry) add("add_health_log_entry", { trackerId: target.log.id, entry });
  }
  return calls;
}
