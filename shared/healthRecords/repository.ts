import { type Db, isoTimestamp as iso } from "../db/sql";
import type { RecordImport, RecordSummary } from "./schemas";

/** The four item kinds kept in `health_record_items` (lab results go to lab panels). */
export type ItemKind = "condition" | "medication" | "allergy" | "immunization";

export interface NewImport {
  id: string;
  accountId: string;
  fileId: string;
  filename: string;
  sha256: string;
  format: "fhir" | "ccda";
  patient: { name: string | null; birthDate: string | null };
  summary: Pick<RecordSummary, "kept" | "skipped" | "problems"> & {
    labPanels: number;
    labResultsAlreadyStored: number;
  };
}

export interface StoredItemRow {
  id: string;
  importId: string;
  kind: ItemKind;
  item: Record<string, unknown>;
}

const IMPORT_COLUMNS = (sql: Db) => sql`
  i.id, i.file_id as "fileId", i.filename, i.format,
  jsonb_build_object('name', i.patient_name, 'birthDate', i.patient_birth_date) as patient,
  ${iso(sql, "i.created_at")} as "createdAt",
  i.summary->'kept' as kept, i.summary->'skipped' as skipped, i.summary->'problems' as problems,
  (i.summary->>'labPanels')::int as "labPanels",
  (i.summary->>'labResultsAlreadyStored')::int as "labResultsAlreadyStored"`;

export async function insertImport(tx: Db, row: NewImport): Promise<void> {
  await tx`
    insert into health_record_imports
      (id, account_id, file_id, filename, sha256, format, patient_name, patient_birth_date, summary)
    values (${row.id}, ${row.accountId}, ${row.fileId}, ${row.filename}, ${row.sha256}, ${row.format},
      ${row.patient.name}, ${row.patient.birthDate}, ${tx.json(row.summary as never)})`;
}

export async function insertItems(
  tx: Db,
  accountId: string,
  importId: string,
  items: { kind: ItemKind; item: object }[],
): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map((entry, position) => ({
    id: Bun.randomUUIDv7(),
    account_id: accountId,
    import_id: importId,
    kind: entry.kind,
    position,
    item: entry.item,
  }));
  // A few thousand items at most (a long Synthea history); one statement per 1,000 keeps each small.
  for (let i = 0; i < rows.length; i += 1000) {
    await tx`insert into health_record_items ${tx(rows.slice(i, i + 1000) as never[])}`;
  }
}

/** The account's import of this upload, or of a file with the same bytes. */
export async function findImportOfFile(
  sql: Db,
  accountId: string,
  file: { fileId: string; sha256: string },
): Promise<RecordImport | undefined> {
  const [row] = await sql<RecordImport[]>`
    select ${IMPORT_COLUMNS(sql)} from health_record_imports i
    where i.account_id = ${accountId} and (i.file_id = ${file.fileId} or i.sha256 = ${file.sha256})
    order by (i.file_id = ${file.fileId}) desc limit 1`;
  return row;
}

export async function findImport(sql: Db, accountId: string, id: string): Promise<RecordImport | undefined> {
  const [row] = await sql<RecordImport[]>`
    select ${IMPORT_COLUMNS(sql)} from health_record_imports i where i.id = ${id} and i.account_id = ${accountId}`;
  return row;
}

export async function listImports(sql: Db, accountId: string): Promise<RecordImport[]> {
  return sql<RecordImport[]>`
    select ${IMPORT_COLUMNS(sql)} from health_record_imports i
    where i.account_id = ${accountId} order by i.created_at desc, i.id desc`;
}

/** Whom the account's earlier imports are about: one row per distinct name and birth date. */
export async function importedPatients(
  sql: Db,
  accountId: string,
): Promise<{ name: string | null; birthDate: string | null }[]> {
  return sql<{ name: string | null; birthDate: string | null }[]>`
    select distinct patient_name as name, patient_birth_date as "birthDate" from health_record_imports
    where account_id = ${accountId} and (patient_name is not null or patient_birth_date is not null)`;
}

/**
 * Until commit, one import per account at a time: the patient check, the duplicate-result check
 * and the insert act as one, so two imports racing store one set and compare with each other.
 */
export async function lockAccountImports(tx: Db, accountId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`record-import:${accountId}`}, 0))`;
}

/** Deletes one import; its items and lab panels go with it (foreign keys cascade). */
export async function deleteImport(
  tx: Db,
  accountId: string,
  id: string,
): Promise<{ itemsDeleted: number; labPanelsDeleted: number } | undefined> {
  const [counts] = await tx<{ items: number; panels: number }[]>`
    select (select count(*)::int from health_record_items where import_id = ${id}) as items,
      (select count(*)::int from lab_panels where record_import_id = ${id}) as panels`;
  const deleted = await tx`delete from health_record_imports where id = ${id} and account_id = ${accountId}`;
  if (deleted.count === 0 || !counts) return undefined;
  return { itemsDeleted: counts.items, labPanelsDeleted: counts.panels };
}

/** The account's items of the given kinds, newest import first, each import's in file order. */
export async function listItems(sql: Db, accountId: string, kinds: ItemKind[]): Promise<StoredItemRow[]> {
  return sql<StoredItemRow[]>`
    select t.id, t.import_id as "importId", t.kind, t.item
    from health_record_items t join health_record_imports i on i.id = t.import_id
    where t.account_id = ${accountId} and t.kind = any(${kinds}::text[])
    order by i.created_at desc, i.id desc, t.position`;
}

export async function setImportLabCounts(
  tx: Db,
  id: string,
  counts: { labPanels: number; labResultsAlreadyStored: number },
): Promise<void> {
  await tx`
    update health_record_imports
    set summary = summary || ${tx.json(counts as never)}
    where id = ${id}`;
}

/** Whom the newest import that names a patient is about. */
export async function latestPatient(
  sql: Db,
  accountId: string,
): Promise<{ name: string | null; birthDate: string | null } | undefined> {
  const [row] = await sql<{ name: string | null; birthDate: string | null }[]>`
    select patient_name as name, patient_birth_date as "birthDate" from health_record_imports
    where account_id = ${accountId} and (patient_name is not null or patient_birth_date is not null)
    order by created_at desc, id desc limit 1`;
  return row;
}
