import { Type as T } from "@sinclair/typebox";
import { exportTracker, summarizeTracker } from "../health/logReports";
import { addEntry, createTracker, getTracker, listTrackers, patchTracker, removeTracker } from "../health/logs";
import {
  EntryInputSchema,
  EntrySchema,
  TRACKER_PAGE,
  TrackerInputSchema,
  TrackerListSchema,
  TrackerPatchSchema,
  TrackerSchema,
} from "../health/schemas";
import { TrackerSummarySchema } from "../health/summary";
import { DELETE, healthCtx, READ_ONLY, WRITE } from "./context";
import { defineTool } from "./types";

/**
 * Health log (tracker) tools: the verbs of /api/v1/health/trackers, so consent and ownership are
 * the same (no consent → empty list, CONSENT_REQUIRED on a single log; another account's log is
 * not found; deleting needs no consent).
 */
const TrackerId = T.String({ minLength: 1, maxLength: 64, description: "A log id from list_health_logs." });
const renderTracker = (t: { title: string; kind: string; status: string; entryCount: number; id: string }) =>
  `${t.title} (${t.kind}, ${t.status}, ${t.entryCount} entries, id ${t.id})`;

export const listHealthLogsTool = defineTool({
  name: "list_health_logs",
  title: "List health logs",
  description:
    "The caller's symptom logs (trackers), newest first, each with its 5 newest entries. Empty without consent. Page with cursor = next_cursor.",
  input: T.Object(
    {
      limit: T.Optional(T.Integer({ minimum: 1, maximum: TRACKER_PAGE.maxLimit, default: TRACKER_PAGE.defaultLimit })),
      cursor: T.Optional(T.String({ minLength: 1, maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  output: TrackerListSchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (ctx, input) => listTrackers(healthCtx(ctx), input),
  render: (list) => (list.trackers.length === 0 ? "No health logs." : list.trackers.map(renderTracker).join("\n")),
});

export const createHealthLogTool = defineTool({
  name: "create_health_log",
  title: "Create a health log",
  description:
    "Starts a new active symptom log (acute illness, pregnancy or custom). Needs consent (save_health_profile).",
  input: TrackerInputSchema,
  output: TrackerSchema,
  annotations: WRITE,
  feature: "health",
  run: (ctx, input) => createTracker(healthCtx(ctx), input),
  render: (t) => `Created ${renderTracker(t)}.`,
});

export const getHealthLogTool = defineTool({
  name: "get_health_log",
  title: "Read a health log",
  description: "One of the caller's logs with all its stored entries, newest first. Needs consent.",
  input: T.Object({ trackerId: TrackerId }, { additionalProperties: false }),
  output: TrackerSchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (ctx, input) => getTracker(healthCtx(ctx), input.trackerId),
  render: renderTracker,
});

export const updateHealthLogTool = defineTool({
  name: "update_health_log",
  title: "Rename a log or change its status",
  description:
    "Changes a log's title and/or status. Moves: active → resolved or archived; resolved → active or archived; archived → active; others are a conflict. Needs consent.",
  input: T.Object({ trackerId: TrackerId, changes: TrackerPatchSchema }, { additionalProperties: false }),
  output: TrackerSchema,
  annotations: { ...WRITE, idempotentHint: true },
  feature: "health",
  run: (ctx, input) => patchTracker(healthCtx(ctx), input.trackerId, input.changes),
  render: (t) => `Updated ${renderTracker(t)}.`,
});

export const deleteHealthLogTool = defineTool({
  name: "delete_health_log",
  title: "Delete a health log",
  description: "Permanently deletes one of the caller's logs and its entries. Does not need consent.",
  input: T.Object({ trackerId: TrackerId }, { additionalProperties: false }),
  output: T.Object({ deleted: T.Literal(true) }),
  annotations: DELETE,
  feature: "health",
  run: (ctx, input) => removeTracker(healthCtx(ctx), input.trackerId),
  render: () => "Deleted.",
});

export const addHealthLogEntryTool = defineTool({
  name: "add_health_log_entry",
  title: "Add an entry to a health log",
  description:
    "Records an observation in an active log: severity 0–10, up to 16 symptoms, temperature with its unit, activity impact, a note; at least one of them. The log keeps its newest 180 entries. Needs consent.",
  input: T.Object({ trackerId: TrackerId, entry: EntryInputSchema }, { additionalProperties: false }),
  output: EntrySchema,
  annotations: WRITE,
  feature: "health",
  run: (ctx, input) => addEntry(healthCtx(ctx), input.trackerId, input.entry),
  render: (e) => `Recorded entry ${e.id} at ${e.recordedAt}.`,
});

export const summarizeHealthLogTool = defineTool({
  name: "summarize_health_log",
  title: "Summarize a health log",
  description:
    "Descriptive summary of one of the caller's logs: symptom counts, severity min/avg/max per day and trend, temperature range, days with activity impact. Needs consent.",
  input: T.Object(
    { trackerId: TrackerId, unit: T.Optional(T.Union([T.Literal("C"), T.Literal("F")], { default: "C" })) },
    { additionalProperties: false },
  ),
  output: TrackerSummarySchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (ctx, input) => summarizeTracker(healthCtx(ctx), input.trackerId, input.unit ?? "C"),
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
    { trackerId: TrackerId, format: T.Optional(T.Union([T.Literal("json"), T.Literal("csv")], { default: "json" })) },
    { additionalProperties: false },
  ),
  output: T.Object({
    filename: T.String(),
    contentType: T.String(),
    content: T.String({ description: "The file's text." }),
  }),
  annotations: READ_ONLY,
  feature: "health",
  run: async (ctx, input) => {
    const file = await exportTracker(healthCtx(ctx), input.trackerId, input.format ?? "json");
    return { filename: file.filename, contentType: file.contentType, content: file.body };
  },
  render: (f) => f.content,
});
