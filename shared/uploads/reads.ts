import type { Deps } from "../context/deps";
import type { Db } from "../db/sql";
import { uploadKey } from "../storage/storage";
import { findUpload, findUploadById, findUploadsByIds, listPages, type UploadRow } from "./repository";

/**
 * What other domains read of an upload: the chat's attachments and the lab-report import. Errors
 * are the database's; each caller decides what an outage means on its path.
 */
export type { UploadRow };

type Store = { sql: Db };

/** The account's uploads with these ids (another account's are left out), in no order. */
export function accountUploads(store: Store, accountId: string, ids: string[]): Promise<UploadRow[]> {
  return findUploadsByIds(store.sql, accountId, ids);
}

/** The account's upload; another account's is not found. */
export function accountUpload(store: Store, accountId: string, id: string): Promise<UploadRow | undefined> {
  return findUpload(store.sql, accountId, id);
}

/** Any account's upload, for a job that carries only the file id (its payload names no account). */
export function uploadById(store: Store, id: string): Promise<UploadRow | undefined> {
  return findUploadById(store.sql, id);
}

/** The text extracted from a processed upload, one entry per page. */
export function uploadPages(store: Store, id: string): Promise<string[]> {
  return listPages(store.sql, id);
}

/**
 * An upload's original bytes, only if they are still the ones processing checked. With S3 the
 * client PUTs to the bucket's presigned URL, which the bucket accepts again until it lapses, so the
 * object may have been replaced since (another size, another type): its size, then its SHA-256,
 * must match what was recorded. Callers decide what an
 * undefined means (the chat sends a PDF's extracted text instead; an import refuses).
 */
export async function processedOriginal(
  deps: Pick<Deps, "uploads" | "log">,
  row: { accountId: string; fileId: string; size: number; sha256: string | null },
): Promise<Uint8Array | undefined> {
  const key = uploadKey(row.accountId, row.fileId);
  const bytes = (await deps.uploads.storage.size(key)) === row.size ? await deps.uploads.storage.read(key) : undefined;
  if (bytes && new Bun.CryptoHasher("sha256").update(bytes).digest("hex") === row.sha256) return bytes;
  deps.log.warn("upload changed since processing; its bytes are not used", { fileId: row.fileId });
  return undefined;
}
