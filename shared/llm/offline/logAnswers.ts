import type { Question } from "./intent";
import { type Json, list, obj, str, strings } from "./json";
import { type LogRef, logsOf, progressLog, recordTarget } from "./logs";
import { symptomLabel } from "./vocabulary";

/** Answers to log questions: a log's summary and trend, and what was recorded (or which log to use). */
const num = (value: unknown) => (typeof value === "number" ? value : undefined);
const day = (iso: unknown) => str(iso)?.slice(0, 10) ?? "?";

export function trendSentence(perDay: number | undefined): string {
  if (perDay === undefined) return "There is no trend yet: it needs entries with a severity on at least two days.";
  const rate = Math.abs(perDay).toFixed(2);
  if (perDay <= -0.1) return `Severity is falling by about ${rate} points a day: your entries are getting better.`;
  if (perDay >= 0.1) return `Severity is rising by about ${rate} points a day: your entries are getting worse.`;
  return `Severity is about flat (${perDay.toFixed(2)} points a day): neither better nor worse.`;
}

function byDay(summary: Json): string[] {
  return list(summary.days)
    .map(obj)
    .slice(-10)
    .map((d) => {
      const severity = num(obj(d.severity).avg);
      const symptoms = strings(d.symptoms).map(symptomLabel);
      const temperature = num(d.temperatureMax);
      return `- ${str(d.date)}: ${[
        severity === undefined ? "" : `severity ${severity}`,
        temperature === undefined ? "" : `highest temperature ${temperature}`,
        symptoms.length ? symptoms.join(", ") : "",
      ]
        .filter(Boolean)
        .join("; ")}`;
    });
}

export function summaryAnswer(summary: Json, log: LogRef | undefined, q: Question, others: number): string {
  const severity = obj(summary.severity);
  const count = num(summary.entryCount) ?? 0;
  const lines = [
    `Summary of your log "${log?.title ?? "?"}" (${log?.kind ?? "?"}, ${log?.status ?? "?"}): ${count} entries, from ${day(summary.firstRecordedAt)} to ${day(summary.lastRecordedAt)}.`,
  ];
  if (num(severity.count)) {
    lines.push(
      `Severity (0–10): average ${severity.avg}, lowest ${severity.min}, highest ${severity.max}. ${trendSentence(num(severity.trendPerDay))}`,
    );
  }
  const temperature = obj(summary.temperature);
  if (num(temperature.count)) {
    lines.push(
      `Temperature: ${temperature.min}–${temperature.max} °${str(temperature.unit)} (${temperature.count} readings).`,
    );
  }
  const symptoms = list(summary.symptoms).map(obj).slice(0, 6);
  if (symptoms.length) {
    lines.push(
      `Symptoms recorded most: ${symptoms.map((s) => `${symptomLabel(str(s.symptom) ?? "")} ×${s.count}`).join(", ")}.`,
    );
  }
  const impact = num(obj(summary.activityImpact).daysWithImpact);
  if (impact) lines.push(`Days your activity was limited: ${impact}.`);
  if (/doctor|summar/i.test(q.text)) lines.push("Day by day:", ...byDay(summary));
  if (others > 0) lines.push(`You have ${others} other log${others > 1 ? "s" : ""}; name one to summarise it instead.`);
  lines.push("This describes what you recorded; it is not a medical assessment.");
  return lines.join("\n");
}

export function progressAnswer(q: Question, logsOutput: unknown, summary: unknown): string {
  const logs = logsOf(logsOutput);
  if (obj(logsOutput).consentGiven !== true) return "Health logs need consent; none can be read.";
  if (logs.length === 0) return "You have no health logs yet, so there is nothing to summarise.";
  if (summary === undefined) return "I could not summarise your log.";
  return summaryAnswer(obj(summary), progressLog(q, logs), q, logs.length - 1);
}

function describeEntry(entry: Json): string {
  const parts: string[] = [];
  if (num(entry.severity) !== undefined) parts.push(`severity ${entry.severity}`);
  const symptoms = strings(entry.symptoms).map(symptomLabel);
  if (symptoms.length) parts.push(`symptoms: ${symptoms.join(", ")}`);
  if (num(entry.temperature) !== undefined)
    parts.push(`temperature ${entry.temperature} °${str(entry.temperatureUnit)}`);
  return parts.join("; ");
}

export function recordAnswer(
  q: Question,
  logsOutput: unknown,
  stored: { output: unknown; isError: boolean } | undefined,
): string {
  if (obj(logsOutput).consentGiven !== true)
    return "Health logs need consent (save your health profile first); nothing was recorded.";
  const target = recordTarget(q, logsOf(logsOutput));
  if ("none" in target) {
    return "You have no active health log to add this to. Start one on the website's health logs page (or POST /api/v1/health/trackers), then ask me again. Nothing was recorded.";
  }
  if ("ask" in target) {
    const titles = target.ask.map((log) => `"${log.title}"`).join(", ");
    return `You have ${target.ask.length} active logs: ${titles}. Which one should I add this to? Ask again naming it, e.g. "record a headache at severity 5 in ${target.ask[0]?.title}". Nothing was recorded yet.`;
  }
  if (!stored) {
    return 'I found nothing to record: say a severity from 0 to 10, a symptom, or a temperature (e.g. "record a headache at severity 5").';
  }
  if (stored.isError)
    return `Recording failed: ${typeof stored.output === "string" ? stored.output : "an error"}. Nothing was recorded.`;
  const entry = obj(stored.output);
  return `Recorded in your log "${target.log.title}": ${describeEntry(entry)} (at ${str(entry.recordedAt)}, entry ${str(entry.id)}).`;
}
