import { type Db, isoTimestamp as iso } from "../db/sql";
import type { UploadDetails, UploadInfo, UploadStatus } from "./schemas";

export interface UploadRow extends UploadInfo {
  accountId: string;
}

const COLUMNS = (sql: Db) => sql`
  u.id as "fileId", u.account_id as "accountId", u.scope, u.filename, u.content_type as "contentType",
  u.size::int as size, u.status, u.failure_reason as "failureReason", u.sha256, u.details,
  case when u.status = 'pending' then ${iso(sql, "u.expires_at")} end as "expiresAt",
  ${iso(sql, "u.created_at")} as "createdAt", ${iso(sql, "u.updated_at")} as "updatedAt"`;

export async function insertUpload(
  sql: Db,
  upload: { id: string; accountId: string; filename: string; contentType: string; size: number; expiresAt: Date },
): Promise<void> {
  await sql`insert into uploads (id, account_id, scope, filename, content_type, size, expires_at)
    values (${upload.id}, ${upload.accountId}, 'health', ${upload.filename}, ${upload.contentType}, ${upload.size},
      ${upload.expiresAt})`;
}

/** The account's upload; another account's is not found. */
export async function findUpload(sql: Db, accountId: string, id: string): Promise<UploadRow | undefined> {
  const [row] = await sql<
    UploadRow[]
  >`select ${COLUMNS(sql)} from uploads u where u.id = ${id} and u.account_id = ${accountId}`;
  return row;
}

/** For the signed PUT and the processor, which know the file id but not the account. */
export async function findUploadById(sql: Db, id: string): Promise<UploadRow | undefined> {
  const [row] = await sql<UploadRow[]>`select ${COLUMNS(sql)} from uploads u where u.id = ${id}`;
  return row;
}

export async function findUploadsByIds(sql: Db, accountId: string, ids: string[]): Promise<UploadRow[]> {
  return sql<UploadRow[]>`
    select ${COLUMNS(sql)} from uploads u where u.account_id = ${accountId} and u.id = any(${ids}::uuid[])`;
}

/** Moves an upload from one status to the next; false when it was not in `from` (a race or a replay). */
export async function moveUpload(
  sql: Db,
  id: string,
  from: UploadStatus[],
  to: UploadStatus,
  extra: { failureReason?: string; sha256?: string; details?: UploadDetails } = {},
): Promise<boolean> {
  const result = await sql`
    update uploads set status = ${to}, failure_reason = ${extra.failureReason ?? null},
      sha256 = coalesce(${extra.sha256 ?? null}, sha256),
      details = coalesce(${extra.details ? sql.json(extra.details as never) : null}::jsonb, details), updated_at = now()
    where id = ${id} and status = any(${from}::text[])`;
  return result.count === 1;
}

/** Replaces the extracted pages (call inside a transaction: a retried job leaves no mix of two runs). */
export async function replacePages(tx: Db, id: string, pages: string[]): Promise<void> {
  await tx`delete from upload_pages where upload_id = ${id}`;
  if (pages.length > 0) {
    await tx`insert into upload_pages ${tx(pages.map((text, index) => ({ upload_id: id, page: index + 1, text })))}`;
  }
}

export async function listPages(sql: Db, id: string): Promise<string[]> {
  const rows = await sql<{ text: string }[]>`select text from upload_pages where upload_id = ${id} order by page`;
  return rows.map((row) => row.text);
}

/** Pending uploads whose URL lapsed: removed, returning their ids and accounts (to delete stored bytes). */
export async function deleteExpiredPending(sql: Db, limit = 1000): Promise<{ id: string; accountId: string }[]> {
  return sql<{ id: string; accountId: string }[]>`
    delete from uploads where id in (
      select id from uploads where status = 'pending' and expires_at < now() order by expires_at limit ${limit}
    ) returning id, account_id as "accountId"`;
}
