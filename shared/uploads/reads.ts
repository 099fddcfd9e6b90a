import type { Db } from "../db/sql";
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
