import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { exportLabPanels } from "../../../shared/labs/export";
import { LabBundleSchema } from "../../../shared/labs/export/fhirSchema";
import { failures } from "../../openapi/declare";
import { CSV, response } from "../../openapi/media";
import { wireSchema } from "../../openapi/wireSchema";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

const ExportQuery = t.Object({
  format: t.Union([t.Literal("csv"), t.Literal("fhir")], {
    description: "`csv`: one line per result. `fhir`: a FHIR R4 Bundle of DiagnosticReport and Observation resources.",
  }),
});

const DESCRIPTION =
  "Oldest panel first. CSV columns: panelId, collectedAt, lab, name, code, value, valueText, unit, rangeLow, rangeHigh, rangeText, flag. FHIR: a `collection` Bundle with a DiagnosticReport per panel and an Observation per result (LOINC code, UCUM unit, reference range, interpretation from the flag). Needs consent.";

const FILE_HEADERS = {
  "Content-Disposition": { schema: { type: "string" }, description: "`attachment; filename=…`" },
};

export function labExportRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/lab-export${mount.suffix}` }).get(
    `${mount.base}/health/labs/export`,
    async ({ request, query, set }) => {
      const file = await exportLabPanels(ctxOf(deps, request), { format: query.format });
      set.headers["content-type"] = file.contentType;
      set.headers["content-disposition"] = `attachment; filename="${file.filename}"`;
      return file.body;
    },
    {
      query: ExportQuery,
      detail: failures(
        {
          tags: mount.tags("Health"),
          summary: "Export every lab result (CSV or FHIR R4)",
          description: DESCRIPTION,
          responses: {
            200: response(
              "The export, as a file (`Content-Disposition: attachment`).",
              {
                ...CSV("A header line, then one line per result (RFC 4180)."),
                "application/fhir+json": { schema: wireSchema(LabBundleSchema) },
              },
              FILE_HEADERS,
            ),
          },
        },
        "CONSENT_REQUIRED",
      ),
    },
  );
}
