import { Type as T } from "@sinclair/typebox";
import { ProfileSchema, TRACKER_PAGE, TrackerListSchema } from "../health/schemas";
import { TrackerSummarySchema } from "../health/summary";
import { getProfile, type HealthCtx } from "../services/healthProfile";
import { LogKindSchema, listSymptomOptions, SymptomOptionsSchema } from "../services/symptoms";
import { summarizeTracker } from "../services/trackerReports";
import { listTrackers } from "../services/trackers";
import { defineTool, type ToolContext } from "./types";

/**
 * Health tools: the same service verbs as the REST endpoints, so consent and ownership rules are
 * the same (no consent → empty profile and list, 403 on a single log; another account's log → 404).
 */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const healthCtx = (ctx: ToolContext): HealthCtx => ({ sql: ctx.deps.sql, accountId: ctx.principal.accountId });

export const getHealthProfileTool = defineTool({
  name: "get_health_profile",
  title: "Read the health profile",
  description:
    "The caller's stored health profile: whether consent is given, conditions and medications. Without consent it is empty (consentGiven false).",
  input: T.Object({}, { additionalProperties: false }),
  output: ProfileSchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (ctx) => getProfile(healthCtx(ctx)),
  render: (p) =>
    p.consentGiven
      ? `Conditions: ${p.conditions.join(", ") || "none"}. Medications: ${p.medications.join(", ") || "none"}.`
      : "No health profile with consent is stored.",
});

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
  render: (list) =>
    list.trackers.length === 0
      ? "No health logs."
      : list.trackers.map((t) => `${t.title} (${t.kind}, ${t.status}, ${t.entryCount} entries, id ${t.id})`).join("\n"),
});

export const summarizeHealthLogTool = defineTool({
  name: "summarize_health_log",
  title: "Summarize a health log",
  description:
    "Descriptive summary of one of the caller's logs: symptom counts, severity min/avg/max per day and trend, temperature range, days with activity impact. Needs consent.",
  input: T.Object(
    {
      trackerId: T.String({ minLength: 1, maxLength: 64, description: "A log id from list_health_logs." }),
      unit: T.Optional(T.Union([T.Literal("C"), T.Literal("F")], { default: "C" })),
    },
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

export const listSymptomOptionsTool = defineTool({
  name: "list_symptom_options",
  title: "Symptom options for a log kind",
  description: "The symptom choices offered for acute, pregnancy or custom logs; urgent marks red-flag symptoms.",
  input: T.Object({ kind: T.Optional(LogKindSchema) }, { additionalProperties: false }),
  output: SymptomOptionsSchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (_ctx, input) => listSymptomOptions(input.kind ?? "acute"),
  render: (o) => o.symptoms.map((s) => `${s.label}${s.urgent ? " (urgent)" : ""}`).join(", "),
});
