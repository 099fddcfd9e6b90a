import { type DocumentDecoration, Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { Text } from "../../../shared/core/text";
import { exportHealthRecord } from "../../../shared/healthRecords/export";
import {
  getRecordImport,
  importHealthRecord,
  listRecordImports,
  undoRecordImport,
} from "../../../shared/healthRecords/imports";
import {
  HealthBundleSchema,
  RecordImportListSchema,
  RecordImportPendingSchema,
  RecordImportSchema,
  RecordUndoSchema,
} from "../../../shared/healthRecords/schemas";
import { failures } from "../../openapi/declare";
import { response } from "../../openapi/media";
import { wireSchema } from "../../openapi/wireSchema";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

const ImportBody = t.Object(
  {
    file_id: Text({
      minLength: 1,
      maxLength: 64,
      description: "A ready upload of the caller (`fileId`) holding a FHIR R4 Bundle (JSON) or a C-CDA document (XML).",
    }),
    proceed: t.Optional(
      t.Boolean({
        description:
          "Import even though the record names another patient than earlier imports (the 409 asks first). Default false.",
      }),
    ),
  },
  { additionalProperties: false },
);

const ImportParams = t.Object({ importId: t.String({ description: "A record import's `id`." }) });

const DOCS = {
  import: [
    "Import a health record (FHIR R4 Bundle or C-CDA document)",
    "Reads the upload on a worker (the `health.import-record` job) and keeps its conditions, medications, allergies, laboratory results (as lab panels, beside PDF-read ones, leaving out results already stored) and immunizations, each with its source; everything else is counted as skipped by resource type. 201 when that finishes within RECORD_IMPORT_WAIT_MS, else 202 (import again, or list imports). A file already imported (this upload, or one with the same bytes) answers its import with 200. 409 CONFLICT: the upload is not ready. 409 RECORD_OTHER_PATIENT: the record names another patient than earlier imports (both names in the message and details; send `proceed: true` to keep it). 413: larger than RECORD_IMPORT_MAX_BYTES. 422 RECORD_NOT_READABLE: neither format, or a Bundle that fails FHIR R4 validation. Needs consent.",
  ],
  list: ["List health-record imports, newest first", "Without consent the list is empty."],
  get: ["Read one health-record import's summary", "Needs consent."],
  export: [
    "Export the whole health record as FHIR R4",
    "A `collection` Bundle: a Patient (named as the latest import names them, never with an account identifier), every condition and medication (typed in the profile or imported, active or not), allergies, immunizations, and each lab panel as a DiagnosticReport with its Observations. Importing it again keeps the same items. The lab export (`/health/labs/export`) stays lab results only. Needs consent.",
  ],
  undo: [
    "Undo a health-record import",
    "Deletes the import with everything read from it (items and lab panels), in one transaction. Does not need consent.",
  ],
} as const;

/** `…/health/records`: importing a health record, its summaries, and undoing it. */
export function recordRoutes(deps: Deps, mount: Mount = V1) {
  const detail = (
    [summary, description]: readonly [string, string],
    responses: DocumentDecoration["responses"],
    ...kinds: ErrorKind[]
  ) => failures({ tags: mount.tags("Health"), summary, description, ...(responses ? { responses } : {}) }, ...kinds);
  const ctx = (request: Request) => ctxOf(deps, request);
  const imports = `${mount.base}/health/records/imports`;
  return new Elysia({ name: `routes/health/records${mount.suffix}` })
    .post(
      `${mount.base}/health/records/import`,
      async ({ request, body, set }) => {
        const answer = await importHealthRecord(ctx(request), { fileId: body.file_id, proceed: body.proceed });
        if (answer.status === "processing") {
          set.status = 202;
          return { status: "processing" as const };
        }
        set.status = answer.status === "created" ? 201 : 200;
        return answer.import;
      },
      {
        body: ImportBody,
        response: { 200: RecordImportSchema, 201: RecordImportSchema, 202: RecordImportPendingSchema },
        detail: detail(
          DOCS.import,
          {
            200: { description: "The file was imported before: that import's summary." },
            201: { description: "The import's summary: what was kept, and what was skipped by resource type." },
            202: { description: "Still being read: the import appears in the list when done." },
          },
          "NOT_FOUND",
          "CONSENT_REQUIRED",
          "CONFLICT",
          "RECORD_OTHER_PATIENT",
          "PAYLOAD_TOO_LARGE",
          "RECORD_NOT_READABLE",
        ),
      },
    )
    .get(
      `${mount.base}/health/records/export`,
      async ({ request, set }) => {
        const file = await exportHealthRecord(ctx(request));
        set.headers["content-type"] = file.contentType;
        set.headers["content-disposition"] = `attachment; filename="${file.filename}"`;
        return file.body;
      },
      {
        detail: detail(
          DOCS.export,
          {
            200: response(
              "The record, as a file (`Content-Disposition: attachment`).",
              { "application/fhir+json": { schema: wireSchema(HealthBundleSchema) } },
              { "Content-Disposition": { schema: { type: "string" }, description: "`attachment; filename=…`" } },
            ),
          },
          "CONSENT_REQUIRED",
        ),
      },
    )
    .get(imports, ({ request }) => listRecordImports(ctx(request)), {
      response: RecordImportListSchema,
      detail: detail(DOCS.list, undefined),
    })
    .get(`${imports}/:importId`, ({ request, params }) => getRecordImport(ctx(request), { id: params.importId }), {
      params: ImportParams,
      response: RecordImportSchema,
      detail: detail(DOCS.get, undefined, "NOT_FOUND", "CONSENT_REQUIRED"),
    })
    .delete(`${imports}/:importId`, ({ request, params }) => undoRecordImport(ctx(request), { id: params.importId }), {
      params: ImportParams,
      response: RecordUndoSchema,
      detail: detail(DOCS.undo, undefined, "NOT_FOUND"),
    });
}
