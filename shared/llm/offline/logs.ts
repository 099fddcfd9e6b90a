import type { Question } from "./intent";
import { obj, str } from "./json";
import { words } from "./text";
import { symptomByLabel } from "./vocabulary";

/** Which log a log question is about, and the entry a "record …" message asks to store. */
export interface LogRef {
  id: string;
  title: string;
  kind: string;
  status: string;
}

export function logsOf(output: unknown): LogRef[] {
  const trackers = obj(output).trackers;
  return (Array.isArray(trackers) ? trackers : []).map(obj).map((t) => ({
    id: str(t.id) ?? "",
    title: str(t.title) ?? "",
    kind: str(t.kind) ?? "custom",
    status: str(t.status) ?? "",
  }));
}

/** A log the message names by its title ("in my Flu log", "add to Migraine diary"). */
export function namedLog(text: string, logs: LogRef[]): LogRef | undefined {
  const said = ` ${words(text).join(" ")} `;
  const byTitle = logs.find((log) => said.includes(` ${words(log.title).join(" ")} `));
  if (byTitle) return byTitle;
  const distinctive = (log: LogRef) =>
    words(log.title).filter((w) => w.length >= 4 && !/^(log|diary|tracker)$/.test(w));
  const hits = logs.filter((log) => distinctive(log).some((word) => said.includes(` ${word} `)));
  return hits.length === 1 ? hits[0] : undefined;
}

/** The log a progress question means: the one named, else the newest active one, else the newest. */
export function progressLog(q: Question, logs: LogRef[]): LogRef | undefined {
  return namedLog(q.text, logs) ?? logs.find((log) => log.status === "active") ?? logs[0];
}

export type RecordTarget = { log: LogRef } | { ask: LogRef[] } | { none: true };

/** Entries go to the active log named, or the only active one; several active logs → ask which. */
export function recordTarget(q: Question, logs: LogRef[]): RecordTarget {
  const active = logs.filter((log) => log.status === "active");
  const named = namedLog(q.text, active);
  if (named) return { log: named };
  if (active.length === 1) return { log: active[0] as LogRef };
  return active.length === 0 ? { none: true } : { ask: active };
}

/** The entry to store: severity, temperature, and symptoms as the log kind's option ids where listed. */
export function entryFor(q: Question, log: LogRef): Record<string, unknown> | undefined {
  const entry: Record<string, unknown> = { ...q.observation };
  const symptoms = q.symptoms.map((s) => {
    const option = symptomByLabel(s.label);
    return option?.ids[log.kind as keyof typeof option.ids] ?? s.label;
  });
  if (symptoms.length > 0) entry.symptoms = [...new Set(symptoms)].slice(0, 16);
  return Object.keys(entry).length > 0 ? entry : undefined;
}
