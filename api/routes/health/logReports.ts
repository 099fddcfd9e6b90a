import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { exportLog, summarizeLog } from "../../../shared/health/logReports";
import { HealthLogExportSchema } from "../../../shared/health/schemas";
import { HealthLogSummarySchema } from "../../../shared/health/summary";
import { failures } from "../../openapi/declare";
import { CSV, json, response } from "../../openapi/media";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";
import { LogParams } from "./logs";

export function healthLogReportRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/log-reports${mount.suffix}` })
    .get(
      `${mount.base}/health/trackers/:trackerId/export`,
      async ({ request, params, query, set }) => {
        const file = await exportLog(ctxOf(deps, request), { id: params.trackerId, format: query.format ?? "json" });
        set.headers["content-type"] = file.contentType;
        set.headers["content-disposition"] = `attachment; filename="${file.filename}"`;
        return file.body;
      },
      {
        params: LogParams,
        query: t.Object({ format: t.Optional(t.Union([t.Literal("csv"), t.Literal("json")], { default: "json" })) }),
        detail: failures(
          {
            tags: mount.tags("Health"),
            summary: "Export every stored entry of a log (CSV or JSON), oldest first",
            description:
              "JSON: `{exportedAt, tracker, entries}`. CSV columns: id, recordedAt, severity, symptoms (joined with `; `), temperature, temperatureUnit, activityImpact, note. Needs consent.",
            responses: {
              200: response(
                "The export, as a file (`Content-Disposition: attachment`).",
                { ...json(HealthLogExportSchema), ...CSV("A header line, then one line per entry (RFC 4180).") },
                { "Content-Disposition": { schema: { type: "string" }, description: "`attachment; filename=…`" } },
              ),
            },
          },
          "NOT_FOUND",
          "CONSENT_REQUIRED",
        ),
      },
    )
    .get(
      `${mount.base}/health/trackers/:trackerId/summary`,
      ({ request, params, query }) =>
        summarizeLog(ctxOf(deps, request), { id: params.trackerId, unit: query.unit ?? "C" }),
      {
        params: LogParams,
        query: t.Object({ unit: t.Optional(t.Union([t.Literal("C"), t.Literal("F")], { default: "C" })) }),
        response: HealthLogSummarySchema,
        detail: failures(
          {
            tags: mount.tags("Health"),
            summary: "Summarize a log: symptom counts, severity per day and trend, temperature range, activity impact",
            description:
              "Descriptive only, not a diagnosis. Days are UTC days; temperatures in `unit` (default C). Needs consent.",
          },
          "NOT_FOUND",
          "CONSENT_REQUIRED",
        ),
      },
    );
}
