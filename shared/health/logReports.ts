import { entriesToCsv } from "./csv";
import { readTrackerForExport } from "./logs";
import type { HealthCtx } from "./profile";
import { summarizeEntries, type TrackerSummary } from "./summary";

export type ExportFormat = "csv" | "json";

/** Every stored entry of a log, oldest first, for a doctor or a spreadsheet. Needs consent. */
export async function exportTracker(ctx: HealthCtx, id: string, format: ExportFormat) {
  const { tracker, entries } = await readTrackerForExport(ctx, id);
  const filename = `health-log-${tracker.id}.${format}`;
  if (format === "csv") return { filename, contentType: "text/csv; charset=utf-8", body: entriesToCsv(entries) };
  const body = JSON.stringify({ exportedAt: new Date().toISOString(), tracker, entries });
  return { filename, contentType: "application/json; charset=utf-8", body };
}

/** Counts, ranges and a per-day series of one log; descriptive only. Needs consent. */
export async function summarizeTracker(ctx: HealthCtx, id: string, unit: "C" | "F"): Promise<TrackerSummary> {
  const { tracker, entries } = await readTrackerForExport(ctx, id);
  return summarizeEntries(tracker.id, entries, unit);
}
