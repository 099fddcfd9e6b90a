import type { Ctx } from "../context/ctx";
import { entriesToCsv } from "./csv";
import { readLogForExport } from "./logs";
import { type HealthLogSummary, summarizeEntries } from "./summary";

export type ExportFormat = "csv" | "json";

/**
 * Every stored entry of a log, oldest first, for a doctor or a spreadsheet. Needs consent. The JSON
 * document names the log `tracker`, as the spec does.
 */
export async function exportLog(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string; format: ExportFormat },
): Promise<{ filename: string; contentType: string; body: string }> {
  const { log, entries } = await readLogForExport(ctx, { id: input.id });
  const filename = `health-log-${log.id}.${input.format}`;
  if (input.format === "csv") return { filename, contentType: "text/csv; charset=utf-8", body: entriesToCsv(entries) };
  const body = JSON.stringify({ exportedAt: new Date().toISOString(), tracker: log, entries });
  return { filename, contentType: "application/json; charset=utf-8", body };
}

/** Counts, ranges and a per-day series of one log; descriptive only. Needs consent. */
export async function summarizeLog(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string; unit: "C" | "F" },
): Promise<HealthLogSummary> {
  const { log, entries } = await readLogForExport(ctx, { id: input.id });
  return summarizeEntries(log.id, entries, input.unit);
}
