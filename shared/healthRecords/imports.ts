import type { Ctx, SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db, unavailable } from "../core/unavailable";
import { resultWithin } from "../events/jobEvents";
import { hasConsent, holdConsent, requireConsentToRead } from "../health/consent";
import { JOBS } from "../jobs/catalog";
import { enqueue } from "../jobs/queue";
import { storeRecordPanels } from "../labs/recordPanels";
import { accountUpload, processedOriginal, type UploadRow, uploadById } from "../uploads/reads";
import { describePatient, differentPatients, type RecordPatient } from "./patients";
import { readHealthRecord } from "./read";
import {
  deleteImport,
  findImport,
  findImportOfFile,
  importedPatients,
  insertImport,
  insertItems,
  listImports,
  lockAccountImports,
  setImportLabCounts,
} from "./repository";
import type { RecordImport, RecordImportList, RecordUndo } from "./schemas";
import { recordItems, recordLabResults } from "./storedItems";

/** What the import job ends with; the request that waits on it turns this into its answer. */
export type RecordImportOutcome =
  | { status: "imported"; importId: string }
  | { status: "unreadable"; reason: string }
  | { status: "no-consent" }
  | { status: "refused"; reason: string }
  | { status: "other-patient"; record: RecordPatient; earlier: RecordPatient[] };

export type RecordImportAnswer = { status: "created" | "existing"; import: RecordImport } | { status: "processing" };

type ImportCtx = Pick<Ctx, "sql" | "queues" | "jobEvents" | "env" | "accountId">;

const CONSENT_MESSAGE =
  "Health records need consent: save the profile with consentGiven: true (POST /api/v1/health/profile) first.";

function notReady(upload: UploadRow): string | null {
  if (upload.status === "ready") return null;
  const why = upload.status === "failed" ? `failed (${upload.failureReason})` : upload.status;
  return `The upload is ${why}; only a ready upload can be imported.`;
}

/**
 * Imports a health record from the caller's ready upload: queues the `health.import-record` job and
 * waits up to RECORD_IMPORT_WAIT_MS for it, else answers `processing` (the job goes on). A file
 * already imported (this upload, or one with the same bytes) answers that import. Needs consent;
 * another account's file is 404; a file over RECORD_IMPORT_MAX_BYTES is 413.
 */
export async function importHealthRecord(
  ctx: ImportCtx,
  input: { fileId: string; proceed?: boolean },
): Promise<RecordImportAnswer> {
  await requireConsentToRead(ctx.sql, ctx.accountId, CONSENT_MESSAGE);
  const { fileId } = input;
  const upload = isUuid(fileId) ? await db(accountUpload(ctx, ctx.accountId, fileId)) : undefined;
  if (upload?.scope !== "health") throw new AppError("NOT_FOUND", `No upload with id ${fileId}.`);
  const refused = notReady(upload);
  if (refused) throw new AppError("CONFLICT", refused);
  const limit = ctx.env.RECORD_IMPORT_MAX_BYTES;
  if (upload.size > limit) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `The record is ${upload.size} bytes; records of at most ${limit} bytes can be imported.`,
    );
  }
  const existing = await db(findImportOfFile(ctx.sql, ctx.accountId, { fileId, sha256: upload.sha256 ?? "" }));
  if (existing) return { status: "existing", import: existing };
  const proceed = input.proceed === true;
  // Concurrent imports of one file share the job while it runs; the job itself stores one set.
  const job = await enqueue(
    ctx.queues,
    "health.import-record",
    { fileId, proceed },
    { deduplicationId: `record-import-${fileId}-${proceed ? "proceed" : "ask"}` },
  ).catch(unavailable("Redis"));
  const outcome = await resultWithin<RecordImportOutcome>(
    ctx.jobEvents,
    JOBS["health.import-record"].queue,
    job,
    ctx.env.RECORD_IMPORT_WAIT_MS,
  );
  if (!outcome) return { status: "processing" };
  return answerOf(ctx, outcome);
}

async function answerOf(ctx: ImportCtx, outcome: RecordImportOutcome): Promise<RecordImportAnswer> {
  switch (outcome.status) {
    case "imported": {
      const stored = await db(findImport(ctx.sql, ctx.accountId, outcome.importId));
      // Undone between the job's end and this read: the import is gone, as the user asked.
      if (!stored) throw new AppError("CONFLICT", "The import was undone while it was being answered.");
      return { status: "created", import: stored };
    }
    case "unreadable":
      throw new AppError("RECORD_NOT_READABLE", outcome.reason);
    case "no-consent":
      throw new AppError("CONSENT_REQUIRED", "Consent was withdrawn while the record was read; nothing was stored.");
    case "refused":
      throw new AppError("CONFLICT", outcome.reason);
    case "other-patient":
      throw new AppError(
        "RECORD_OTHER_PATIENT",
        `This record is about ${describePatient(outcome.record)}, but earlier imports are about ${outcome.earlier
          .map(describePatient)
          .join(" and ")}. Nothing was stored; import again with "proceed": true to keep it anyway.`,
        {
          details: [
            { in: "body", path: "/proceed", message: `The record's patient: ${describePatient(outcome.record)}` },
            ...outcome.earlier.map((patient) => ({
              in: "body" as const,
              path: "/proceed",
              message: `Earlier imports' patient: ${describePatient(patient)}`,
            })),
          ],
        },
      );
  }
}

/**
 * The `health.import-record` job: reads the upload's bytes (only if they are still the ones
 * processing checked), then stores the import, its items and its lab panels in one transaction
 * with consent held and the account's imports locked, so a repeat or a race stores one set.
 */
export async function runRecordImport(
  ctx: Pick<SystemCtx, "sql" | "uploads" | "log">,
  payload: { fileId: string; proceed: boolean },
): Promise<RecordImportOutcome> {
  const upload = await uploadById(ctx, payload.fileId);
  if (!upload) return { status: "refused", reason: `No upload with id ${payload.fileId}.` };
  const refused = notReady(upload);
  if (refused) return { status: "refused", reason: refused };
  const done = await findImportOfFile(ctx.sql, upload.accountId, {
    fileId: upload.fileId,
    sha256: upload.sha256 ?? "",
  });
  if (done) return { status: "imported", importId: done.id };
  const bytes = await processedOriginal(ctx, upload);
  if (!bytes) return { status: "refused", reason: "The upload's bytes changed after it was checked; upload it again." };
  let record: ReturnType<typeof readHealthRecord>;
  try {
    record = readHealthRecord(bytes, upload.filename);
  } catch (error) {
    if (error instanceof AppError && error.kind === "RECORD_NOT_READABLE") {
      return { status: "unreadable", reason: error.message };
    }
    throw error;
  }
  const patient: RecordPatient = {
    name: record.summary.patient.name ?? null,
    birthDate: record.summary.patient.birthDate ?? null,
  };
  return ctx.sql.begin(async (tx): Promise<RecordImportOutcome> => {
    if (!(await holdConsent(tx, upload.accountId))) return { status: "no-consent" };
    await lockAccountImports(tx, upload.accountId);
    const again = await findImportOfFile(tx, upload.accountId, { fileId: upload.fileId, sha256: upload.sha256 ?? "" });
    if (again) return { status: "imported", importId: again.id };
    if (!payload.proceed) {
      const earlier = (await importedPatients(tx, upload.accountId)).filter((other) =>
        differentPatients(patient, other),
      );
      if (earlier.length > 0) return { status: "other-patient", record: patient, earlier };
    }
    const importId = Bun.randomUUIDv7();
    const { kept, skipped, problems } = record.summary;
    await insertImport(tx, {
      id: importId,
      accountId: upload.accountId,
      fileId: upload.fileId,
      filename: upload.filename,
      sha256: upload.sha256 ?? "",
      format: record.summary.format,
      patient,
      summary: { kept, skipped, problems, labPanels: 0, labResultsAlreadyStored: 0 },
    });
    await insertItems(tx, upload.accountId, importId, recordItems(record));
    const labs = await storeRecordPanels(tx, {
      accountId: upload.accountId,
      importId,
      fileId: upload.fileId,
      results: recordLabResults(record, new Date(upload.createdAt)),
    });
    await setImportLabCounts(tx, importId, { labPanels: labs.panels, labResultsAlreadyStored: labs.alreadyStored });
    return { status: "imported", importId };
  });
}

/** The caller's imports, newest first; without consent an empty list. */
export async function listRecordImports(ctx: Pick<Ctx, "sql" | "accountId">): Promise<RecordImportList> {
  if (!(await hasConsent(ctx.sql, ctx.accountId))) return { consentGiven: false, imports: [] };
  return { consentGiven: true, imports: await db(listImports(ctx.sql, ctx.accountId)) };
}

export async function getRecordImport(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string },
): Promise<RecordImport> {
  await requireConsentToRead(ctx.sql, ctx.accountId, CONSENT_MESSAGE);
  const found = isUuid(input.id) ? await db(findImport(ctx.sql, ctx.accountId, input.id)) : undefined;
  if (!found) throw new AppError("NOT_FOUND", `No record import with id ${input.id}.`);
  return found;
}

/** Undoes one import as a whole: its items and lab panels go with it. Needs no consent. */
export async function undoRecordImport(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string },
): Promise<RecordUndo> {
  const counts = isUuid(input.id)
    ? await db(ctx.sql.begin((tx) => deleteImport(tx, ctx.accountId, input.id)))
    : undefined;
  if (!counts) throw new AppError("NOT_FOUND", `No record import with id ${input.id}.`);
  return { deleted: true, ...counts };
}
