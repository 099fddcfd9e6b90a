import { Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { exportLog, summarizeLog } from "../health/logReports";
import { addEntry, createLog, getLog, listLogs, patchLog, removeLog } from "../health/logs";
import {
  EntryInputSchema,
  EntrySchema,
  HealthLogInputSchema,
  HealthLogListSchema,
  HealthLogPatchSchema,
  HealthLogSchema,
  LOG_PAGE,
} from "../health/schemas";
import { HealthLogSummarySchema } from "../health/summary";
import { DELETE, READ_ONLY, WRITE } from "./annotations";
import { defineTool } from "./types";

/**
 * Health log tools: the verbs of /api/v1/health/trackers, so consent and ownership are the same (no
 * consent → empty list, CONSENT_REQUIRED on a single log; another account's log is not found;
 * deleting needs no consent). Inputs name a log `trackerId`, as the REST path parameter does.
 */
const LogId = Text({ minLength: 1, maxLength: 64, description: "A log id from list_health_logs." });
const renderLog = (t: { title: string; kind: string; status: string; entryCount: number; id: string }) =>
  `${t.title} (${t.kind}, ${t.status}, ${t.entryCount} entries, id ${t.id})`;

export const listHealthLogsTool = defineTool({
  name: "list_health_logs",
  title: "List health logs",
  description:
    "The caller's symptom logs (trackers), newest first, each with its 5 newest entries. Empty without consent. Page with cursor = next_cursor.",
  input: T.Object(
    {
      limit: T.Optional(T.Integer({ minimum: 1, maximum: LOG_PAGE.maxLimit, default: LOG_PAGE.defaultLimit })),
      cursor: T.Optional(Text({ minLength: 1, maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  output: HealthLogListSchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx, input) => listLogs(ctx, input),
  render: (list) => (list.trackers.length === 0 ? "No health logs." : list.trackers.map(renderLog).join("\n")),
});

export const createHealthLogTool = defineTool({
  name: "create_health_log",
  title: "Create a health log",
  description:
    "Starts a new active symptom log (acute illness, pregnancy or custom). Needs consent (save_health_profile).",
  input: HealthLogInputSchema,
  output: HealthLogSchema,
  annotations: WRITE,
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => createLog(ctx, input),
  render: (t) => `Created ${renderLog(t)}.`,
});

export const getHealthLogTool = defineTool({
  name: "get_health_log",
  title: "Read a health log",
  description: "One of the caller's logs with all its stored entries, newest first. Needs consent.",
  input: T.Object({ trackerId: LogId }, { additionalProperties: false }),
  output: HealthLogSchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx, input) => getLog(ctx, { id: input.trackerId }),
  render: renderLog,
});

export const updateHealthLogTool = defineTool({
  name: "update_health_log",
  title: "Rename a log or change its status",
  description:
    "Changes a log's title and/or status. Moves: active → resolved or archived; resolved → active or archived; archived → active; others are a conflict. Needs consent.",
  input: T.Object({ trackerId: LogId, changes: HealthLogPatchSchema }, { additionalProperties: false }),
  output: HealthLogSchema,
  annotations: { ...WRITE, idempotentHint: true },
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => patchLog(ctx, { id: input.trackerId, changes: input.changes }),
  render: (t) => `Updated ${renderLog(t)}.`,
});

export const deleteHealthLogTool = defineTool({
  name: "delete_health_log",
  title: "Delete a health log",
  description: "Permanently deletes one of the caller's logs and its entries. Does not need consent.",
  input: T.Object({ trackerId: LogId }, { additionalProperties: false }),
  output: T.Object({ deleted: T.Literal(true) }),
  annotations: DELETE,
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => removeLog(ctx, { id: input.trackerId }),
  render: () => "Deleted.",
});

export const addHealthLogEntryTool = defineTool({
  name: "add_health_log_entry",
  title: "Add an entry to a health log",
  description:
    "Records an observation in an active log: severity 0–10, up to 16 symptoms, temperature with its unit, activity impact, a note; at least one of them. The log keeps its newest 180 entries. Needs consent.",
  input: T.Object({ trackerId: LogId, entry: EntryInputSchema }, { additionalProperties: false }),
  output: EntrySchema,
  annotations: WRITE,
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => addEntry(ctx, { logId: input.trackerId, entry: input.entry }),
  render: (e) => `Recorded entry ${e.id} at ${e.recordedAt}.`,
});

export const summarizeHealthLogTool = defineTool({
  name: "summarize_health_log",
  title: "Summarize a health log",
  description:
    "Descriptive summary of one of the caller's logs: symptom counts, severity min/avg/max per day and trend, temperature range, days with activity impact. Needs consent.",
  input: T.Object(
    { trackerId: LogId, unit: T.Optional(T.Union([T.Literal("C"), T.Literal("F")], { default: "C" })) },
    { additionalProperties: false },
  ),
  output: HealthLogSummarySchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx, input) => summarizeLog(ctx, { id: input.trackerId, unit: input.unit ?? "C" }),
  render: (s) =>
    `${s.entryCount} entries; severity ${s.severity.min ?? "–"}–${s.severity.max ?? "–"} (avg ${s.severity.avg ?? "–"}); top symptoms: ${
      s.symptoms
        .slice(0, 5)
        .map((x) => `${x.symptom} ×${x.count}`)
        .join(", ") || "none"
    }.`,
});

export const exportHealthLogTool = defineTool({
  name: "export_health_log",
  title: "Export a health log",
  description:
    "Every stored entry of a log, oldest first, as a JSON document ({exportedAt, tracker, entries}) or CSV text, for a doctor or a spreadsheet. Needs consent.",
  input: T.Object(
    { trackerId: LogId, format: T.Optional(T.Union([T.Literal("json"), T.Literal("csv")], { default: "json" })) },
    { additionalProperties: false },
  ),
  output: T.Object({
    filename: T.String(),
    contentType: T.String(),
    content: T.String({ description: "The file's text." }),
  }),
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: async (ctx, input) => {
    const file = await exportLog(ctx, { id: input.trackerId, format: input.format ?? "json" });
    return { filename: file.filename, contentType: file.contentType, content: file.body };
  },
  render: (f) => f.content,
});
