import { type Static, Type as T } from "@sinclair/typebox";
import type { ActivityImpact, Entry } from "./schemas";

/**
 * A descriptive, chart-ready summary of one log's stored entries: counts and ranges, no
 * interpretation. Days are UTC calendar days; temperatures are converted to one unit.
 */
const Stat = T.Union([T.Number(), T.Null()]);
const SeverityStats = T.Object({ count: T.Integer(), min: Stat, avg: Stat, max: Stat });

export const HealthLogSummarySchema = T.Object({
  trackerId: T.String({ format: "uuid" }),
  entryCount: T.Integer(),
  firstRecordedAt: T.Union([T.String({ format: "date-time" }), T.Null()]),
  lastRecordedAt: T.Union([T.String({ format: "date-time" }), T.Null()]),
  severity: T.Composite([
    SeverityStats,
    T.Object({
      trendPerDay: T.Union([T.Number(), T.Null()], {
        description:
          "Least-squares slope of the daily average severity, in points per day; null with fewer than two days.",
      }),
    }),
  ]),
  temperature: T.Object({ unit: T.Union([T.Literal("C"), T.Literal("F")]), count: T.Integer(), min: Stat, max: Stat }),
  symptoms: T.Array(T.Object({ symptom: T.String(), count: T.Integer(), lastRecordedAt: T.String() }), {
    description: "Entries naming each symptom (spellings merged ignoring case), most frequent first.",
  }),
  activityImpact: T.Object({
    normal: T.Integer(),
    limited: T.Integer(),
    unable: T.Integer(),
    daysWithImpact: T.Integer({ description: "UTC days with at least one limited or unable entry." }),
  }),
  days: T.Array(
    T.Object({
      date: T.String({ description: "UTC day, YYYY-MM-DD." }),
      entries: T.Integer(),
      severity: SeverityStats,
      temperatureMax: Stat,
      activityImpact: T.Union([T.Literal("normal"), T.Literal("limited"), T.Literal("unable"), T.Null()], {
        description: "The most limiting impact recorded that day.",
      }),
      symptoms: T.Array(T.String()),
    }),
    { description: "One item per UTC day with entries, oldest first." },
  ),
});
export type HealthLogSummary = Static<typeof HealthLogSummarySchema>;

type Unit = "C" | "F";
const IMPACT_RANK: Record<ActivityImpact, number> = { normal: 0, limited: 1, unable: 2 };

const round2 = (value: number) => Math.round(value * 100) / 100;

export function convertTemperature(value: number, from: Unit, to: Unit): number {
  if (from === to) return value;
  return round2(to === "F" ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9);
}

function temperaturesIn(entries: readonly Entry[], unit: Unit): number[] {
  return entries.flatMap((e) =>
    e.temperature === null || e.temperatureUnit === null
      ? []
      : [convertTemperature(e.temperature, e.temperatureUnit, unit)],
  );
}

function stats(values: number[]) {
  if (values.length === 0) return { count: 0, min: null, avg: null, max: null };
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: values.length, min: Math.min(...values), avg: round2(sum / values.length), max: Math.max(...values) };
}

/** Least-squares slope of y over x (x in days since the first day). */
function slope(points: { x: number; y: number }[]): number | null {
  if (points.length < 2) return null;
  const meanX = points.reduce((a, p) => a + p.x, 0) / points.length;
  const meanY = points.reduce((a, p) => a + p.y, 0) / points.length;
  const cov = points.reduce((a, p) => a + (p.x - meanX) * (p.y - meanY), 0);
  const varX = points.reduce((a, p) => a + (p.x - meanX) ** 2, 0);
  return round2(cov / varX);
}

/** `entries` in any order; the summary sorts them by `recordedAt`. `trackerId` is the spec's field name. */
export function summarizeEntries(logId: string, entries: readonly Entry[], unit: Unit): HealthLogSummary {
  const sorted = [...entries].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
  const severities = sorted.flatMap((e) => (e.severity === null ? [] : [e.severity]));
  const temperatures = temperaturesIn(sorted, unit);
  const days = [...groupByDay(sorted)].map(([date, dayEntries]) => summarizeDay(date, dayEntries, unit));
  return {
    trackerId: logId,
    entryCount: sorted.length,
    firstRecordedAt: sorted[0]?.recordedAt ?? null,
    lastRecordedAt: sorted.at(-1)?.recordedAt ?? null,
    severity: { ...stats(severities), trendPerDay: severityTrend(days) },
    temperature: {
      unit,
      count: temperatures.length,
      min: temperatures.length ? Math.min(...temperatures) : null,
      max: temperatures.length ? Math.max(...temperatures) : null,
    },
    symptoms: countSymptoms(sorted),
    activityImpact: {
      ...countImpacts(sorted),
      daysWithImpact: days.filter((day) => day.activityImpact === "limited" || day.activityImpact === "unable").length,
    },
    days,
  };
}

/** Entries (sorted) by UTC day, in the order the days first appear. */
function groupByDay(sorted: readonly Entry[]): Map<string, Entry[]> {
  const byDay = new Map<string, Entry[]>();
  for (const entry of sorted) {
    const day = entry.recordedAt.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), entry]);
  }
  return byDay;
}

/** Spellings merged ignoring case (the first kept), most frequent first. */
function countSymptoms(sorted: readonly Entry[]): HealthLogSummary["symptoms"] {
  const symptoms = new Map<string, { symptom: string; count: number; lastRecordedAt: string }>();
  for (const entry of sorted) {
    for (const symptom of entry.symptoms) {
      const key = symptom.toLowerCase();
      const seen = symptoms.get(key) ?? { symptom, count: 0, lastRecordedAt: entry.recordedAt };
      symptoms.set(key, { ...seen, count: seen.count + 1, lastRecordedAt: entry.recordedAt });
    }
  }
  return [...symptoms.values()].sort((a, b) => b.count - a.count || a.symptom.localeCompare(b.symptom));
}

function countImpacts(entries: readonly Entry[]): Record<ActivityImpact, number> {
  const impacts = { normal: 0, limited: 0, unable: 0 };
  for (const entry of entries) if (entry.activityImpact) impacts[entry.activityImpact] += 1;
  return impacts;
}

/** Slope of the daily average severity over days since the first day with entries. */
function severityTrend(days: HealthLogSummary["days"]): number | null {
  const firstDay = days[0] ? Date.parse(days[0].date) : 0;
  return slope(
    days.flatMap((day) =>
      day.severity.avg === null ? [] : [{ x: (Date.parse(day.date) - firstDay) / 86_400_000, y: day.severity.avg }],
    ),
  );
}

function summarizeDay(date: string, entries: Entry[], unit: Unit): HealthLogSummary["days"][number] {
  const temperatures = temperaturesIn(entries, unit);
  let worst: ActivityImpact | null = null;
  for (const entry of entries) {
    if (entry.activityImpact && (worst === null || IMPACT_RANK[entry.activityImpact] > IMPACT_RANK[worst])) {
      worst = entry.activityImpact;
    }
  }
  const symptoms = new Map<string, string>();
  for (const entry of entries)
    for (const s of entry.symptoms) if (!symptoms.has(s.toLowerCase())) symptoms.set(s.toLowerCase(), s);
  return {
    date,
    entries: entries.length,
    severity: stats(entries.flatMap((e) => (e.severity === null ? [] : [e.severity]))),
    temperatureMax: temperatures.length ? Math.max(...temperatures) : null,
    activityImpact: worst,
    symptoms: [...symptoms.values()],
  };
}
