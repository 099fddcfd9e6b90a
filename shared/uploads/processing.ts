import type { SystemCtx } from "../context/ctx";
import { uploadKey } from "../storage/storage";
import { inspectUpload } from "./inspect";
import { deleteExpiredPending, findUploadById, moveUpload, replacePages } from "./repository";

type ProcessingCtx = Pick<SystemCtx, "sql" | "uploads">;

/**
 * Processes an uploaded file: processing → ready (pages and details stored) or failed (with the
 * reason). Idempotent: a file no longer `processing` is left alone, and pages are replaced in
 * the same transaction that marks it ready. Storage errors throw, so BullMQ retries them.
 */
export async function processUpload(ctx: ProcessingCtx, payload: { fileId: string }): Promise<{ status: string }> {
  const row = await findUploadById(ctx.sql, payload.fileId);
  if (row?.status !== "processing") return { status: row?.status ?? "missing" };
  const bytes = await ctx.uploads.storage.read(uploadKey(row.accountId, row.fileId));
  if (!bytes) {
    await moveUpload(ctx.sql, row.fileId, ["processing"], "failed", {
      failureReason: "No bytes were stored for this file.",
    });
    return { status: "failed" };
  }
  const result = await inspectUpload(bytes, row);
  if (!result.ok) {
    await moveUpload(ctx.sql, row.fileId, ["processing"], "failed", { failureReason: result.reason });
    return { status: "failed" };
  }
  if (result.modelCopy)
    await ctx.uploads.storage.write(uploadKey(row.accountId, row.fileId, "model.jpg"), result.modelCopy);
  await ctx.sql.begin(async (tx) => {
    await replacePages(tx, row.fileId, result.pages);
    await moveUpload(tx, row.fileId, ["processing"], "ready", { sha256: result.sha256, details: result.details });
  });
  return { status: "ready" };
}

/** Deletes pending uploads whose URL lapsed, with any bytes a late PUT may have left. */
export async function expirePendingUploads(ctx: ProcessingCtx): Promise<{ deleted: number }> {
  const expired = await deleteExpiredPending(ctx.sql);
  for (const upload of expired) await ctx.uploads.storage.remove(uploadKey(upload.accountId, upload.id));
  return { deleted: expired.length };
}
