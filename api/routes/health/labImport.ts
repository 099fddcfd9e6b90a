import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { Text } from "../../../shared/core/text";
import { importLabReport } from "../../../shared/labs/imports";
import { LabImportPendingSchema, LabImportSchema } from "../../../shared/labs/schemas";
import { failures } from "../../openapi/declare";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

const ImportBody = t.Object(
  { file_id: Text({ minLength: 1, maxLength: 64, description: "A ready PDF upload of the caller (`fileId`)." }) },
  { additionalProperties: false },
);

const DESCRIPTION =
  "Reads the report's text on a worker (the `labs.import-report` job) and stores one panel per collection date it prints. 201 when that finishes within a few seconds (LAB_IMPORT_WAIT_MS), else 202 and the panels appear in the list when done (importing again answers them, or the 422). A file already imported answers its panels with 200. Printed dates carry no zone and are read as UTC; without one the upload's time is used. 409: the upload is not ready or not a PDF. 422 NO_LAB_RESULTS: nothing could be read, with the reason. Needs consent.";

/** `POST …/health/labs/import`: lab panels from an uploaded PDF report. */
export function labImportRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/lab-import${mount.suffix}` }).post(
    `${mount.base}/health/labs/import`,
    async ({ request, body, set }) => {
      const answer = await importLabReport(ctxOf(deps, request), { fileId: body.file_id });
      if (answer.status === "processing") {
        set.status = 202;
        return { status: "processing" as const };
      }
      set.status = answer.status === "created" ? 201 : 200;
      return { panels: answer.panels };
    },
    {
      body: ImportBody,
      response: { 200: LabImportSchema, 201: LabImportSchema, 202: LabImportPendingSchema },
      detail: failures(
        {
          tags: mount.tags("Health"),
          summary: "Import lab panels from an uploaded PDF report",
          description: DESCRIPTION,
          responses: {
            200: { description: "The file was imported before: its panels as they are now." },
            201: { description: "The panels read from the report." },
            202: { description: "Still being read: the panels appear in the list when done." },
          },
        },
        "NOT_FOUND",
        "CONSENT_REQUIRED",
        "CONFLICT",
        "NO_LAB_RESULTS",
      ),
    },
  );
}
