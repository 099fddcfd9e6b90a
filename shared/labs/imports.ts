import type { Ctx, SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db, unavailable } from "../core/unavailable";
import { resultWithin } from "../events/jobEvents";
import { holdConsent } from "../health/consent";
import { JOBS } from "../jobs/catalog";
import { enqueue } from "../jobs/queue";
import type { ModelEntry } from "../llm/models";
import { accountUpload, type UploadRow, uploadById, uploadPages } from "../uploads/reads";
import { readWithModel } from "./modelRead";
import { requireLabConsentToRead } from "./panels";
import { panelsFromReport, whyNoResults } from "./reportPanels";
import { insertPanel, listPanelsBySource, lockSource } from "./repository";
import type { LabPanel } from "./schemas";

/** What the import job ends with; the request that waits on it turns this into its answer. */
export type ImportOutcome =
  | { status: "imported"; panelIds: string[] }
  | { status: "empty"; reason: string }
  | { status: "no-consent" }
  | { status: "refused"; reason: string };

export type ImportAnswer = { status: "created" | "existing"; panels: LabPanel[] } | { status: "processing" };

type ImportCtx = Pick<Ctx, "sql" | "queues" | "jobEvents" | "env" | "accountId" | "models" | "plan">;

const PDF = "application/pdf";

/** Why an upload cannot be imported (a 409 message), or null when it is a ready PDF. */
function notImportable(upload: UploadRow): string | null {
  if (upload.status !== "ready") {
    const why = upload.status === "failed" ? `failed (${upload.failureReason})` : upload.status;
    return `The upload is ${why}; only a ready upload can be imported.`;
  }
  if (upload.contentType !== PDF) return `Only PDF lab reports can be imported; this upload is ${upload.contentType}.`;
  return null;
}

/** The model that reads reports for this plan: its default chat model, unless that is the offline one. */
function readerModel(ctx: Pick<Ctx, "models" | "plan">): ModelEntry | undefined {
  const model = ctx.models.find((entry) => entry.defaultFor.includes(ctx.plan));
  return model && model.provider !== "offline" ? model : undefined;
}

/**
 * Imports lab panels from the caller's ready PDF upload: queues the `labs.import-report` job and
 * waits up to LAB_IMPORT_WAIT_MS for it, else answers `processing` (the job goes on). A file whose
 * panels exist answers them without reading it again. Needs consent; another account's file is 404.
 */
export async function importLabReport(ctx: ImportCtx, input: { fileId: string }): Promise<ImportAnswer> {
  await requireLabConsentToRead(ctx.sql, ctx.accountId);
  const { fileId } = input;
  const upload = isUuid(fileId) ? await db(accountUpload(ctx, ctx.accountId, fileId)) : undefined;
  if (upload?.scope !== "health") throw new AppError("NOT_FOUND", `No upload with id ${fileId}.`);
  const refused = notImportable(upload);
  if (refused) throw new AppError("CONFLICT", refused);
  const existing = await db(listPanelsBySource(ctx.sql, ctx.accountId, fileId));
  if (existing.length > 0) return { status: "existing", panels: existing };
  // Concurrent imports of one file share the job while it runs; a later one reads again.
  const model = readerModel(ctx);
  const payload = { fileId, ...(model ? { model: model.id } : {}) };
  const job = await enqueue(ctx.queues, "labs.import-report", payload, {
    deduplicationId: `lab-import-${fileId}`,
  }).catch(unavailable("Redis"));
  const outcome = await resultWithin<ImportOutcome>(
    ctx.jobEvents,
    JOBS["labs.import-report"].queue,
    job,
    ctx.env.LAB_IMPORT_WAIT_MS,
  );
  if (!outcome) return { status: "processing" };
  return answerOf(ctx, fileId, outcome);
}

async function answerOf(ctx: ImportCtx, fileId: string, outcome: ImportOutcome): Promise<ImportAnswer> {
  switch (outcome.status) {
    case "imported":
      return { status: "created", panels: await db(listPanelsBySource(ctx.sql, ctx.accountId, fileId)) };
    case "empty":
      throw new AppError("NO_LAB_RESULTS", `No lab results could be read from this PDF: ${outcome.reason}.`);
    case "no-consent":
      throw new AppError("CONSENT_REQUIRED", "Consent was withdrawn while the report was read; nothing was stored.");
    case "refused":
      throw new AppError("CONFLICT", outcome.reason);
  }
}

/**
 * The `labs.import-report` job: reads the upload's extracted page text (with the payload's model
 * when this worker has it, else the parser) and stores one panel per collection date, with consent held and the file locked so that a repeat stores
 * nothing twice (it returns the panels already there). Idempotent, so retries are safe.
 */
export async function runLabImport(
  ctx: Pick<SystemCtx, "sql" | "env" | "log" | "models">,
  payload: { fileId: string; model?: string },
): Promise<ImportOutcome> {
  const upload = await uploadById(ctx, payload.fileId);
  if (!upload) return { status: "refused", reason: `No upload with id ${payload.fileId}.` };
  const refused = notImportable(upload);
  if (refused) return { status: "refused", reason: refused };
  // A retry of a job that stored its panels answers them without reading the report again.
  const done = await listPanelsBySource(ctx.sql, upload.accountId, upload.fileId);
  if (done.length > 0) return { status: "imported", panelIds: done.map((panel) => panel.id) };
  const pages = await uploadPages(ctx, upload.fileId);
  // A model this worker does not have (configurations differ) leaves the parser to read.
  const model = ctx.models.find((entry) => entry.id === payload.model && entry.provider !== "offline");
  const read = model ? (part: string[]) => readWithModel(ctx, model, part) : undefined;
  const drafts = await panelsFromReport(pages, new Date(upload.createdAt), read);
  if (drafts.length === 0) return { status: "empty", reason: whyNoResults(pages) };
  return ctx.sql.begin(async (tx): Promise<ImportOutcome> => {
    if (!(await holdConsent(tx, upload.accountId))) return { status: "no-consent" };
    await lockSource(tx, upload.fileId);
    const existing = await listPanelsBySource(tx, upload.accountId, upload.fileId);
    if (existing.length > 0) return { status: "imported", panelIds: existing.map((panel) => panel.id) };
    const panelIds: string[] = [];
    for (const draft of drafts) {
      const { pages: sourcePages, ...panel } = draft;
      const stored = await insertPanel(tx, {
        ...panel,
        id: Bun.randomUUIDv7(),
        accountId: upload.accountId,
        source: { fileId: upload.fileId, pages: sourcePages },
      });
      panelIds.push(stored.id);
    }
    return { status: "imported", panelIds };
  });
}
