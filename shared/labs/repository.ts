import { type Db, isoTimestamp as iso } from "../db/sql";
import type { LabPanel, LabResult } from "./schemas";

/** A panel to store in `lab_panels`: the API shape plus its account, with `collectedAt` as a Date. */
export interface NewPanel {
  id: string;
  accountId: string;
  collectedAt: Date;
  lab: string | null;
  source: { fileId: string; pages: number[] } | null;
  /** Set for panels read from an imported health record: undoing the import deletes them. */
  recordImportId?: string;
  results: LabResult[];
}

/** Where a list page starts: strictly after this panel in (collectedAt desc, id desc) order. */
export interface PanelKey {
  collectedAt: string;
  id: string;
}

const PANEL_COLUMNS = (sql: Db) => sql`
  p.id, ${iso(sql, "p.collected_at")} as "collectedAt", p.lab,
  case when p.source_file_id is null then null
    else jsonb_build_object('fileId', p.source_file_id, 'pages', to_jsonb(coalesce(p.source_pages, '{}')))
      || case when p.record_import_id is null then '{}'::jsonb
        else jsonb_build_object('recordImportId', p.record_import_id) end
  end as source,
  ${iso(sql, "p.created_at")} as "createdAt", p.results`;

export async function insertPanel(sql: Db, panel: NewPanel): Promise<LabPanel> {
  const [row] = await sql<LabPanel[]>`
    insert into lab_panels as p
      (id, account_id, collected_at, lab, source_file_id, source_pages, record_import_id, results)
    values (${panel.id}, ${panel.accountId}, ${panel.collectedAt}, ${panel.lab}, ${panel.source?.fileId ?? null},
      ${panel.source?.pages ?? null}, ${panel.recordImportId ?? null}, ${sql.json(panel.results as never)})
    returning ${PANEL_COLUMNS(sql)}`;
  return row as LabPanel;
}

/** The account's panel with this id; another account's panel is not found. */
export async function findPanelById(sql: Db, accountId: string, id: string): Promise<LabPanel | undefined> {
  const [row] = await sql<LabPanel[]>`
    select ${PANEL_COLUMNS(sql)} from lab_panels p where p.id = ${id} and p.account_id = ${accountId}`;
  return row;
}

/** One page of the account's panels, newest collectedAt first (ties: newest id first). */
export async function listPanelsByAccount(
  sql: Db,
  accountId: string,
  page: { after: PanelKey | null; limit: number },
): Promise<LabPanel[]> {
  const after = page.after
    ? sql`and (p.collected_at, p.id) < (${page.after.collectedAt}::timestamptz, ${page.after.id}::uuid)`
    : sql``;
  return sql<LabPanel[]>`
    select ${PANEL_COLUMNS(sql)} from lab_panels p
    where p.account_id = ${accountId} ${after}
    order by p.collected_at desc, p.id desc limit ${page.limit}`;
}

/** The account's panels read from one upload, in list order. */
export async function listPanelsBySource(sql: Db, accountId: string, fileId: string): Promise<LabPanel[]> {
  return sql<LabPanel[]>`
    select ${PANEL_COLUMNS(sql)} from lab_panels p
    where p.account_id = ${accountId} and p.source_file_id = ${fileId}
    order by p.collected_at desc, p.id desc`;
}

/** Until commit, one import per upload at a time: the check for existing panels and the insert act as one. */
export async function lockSource(tx: Db, fileId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`lab-import:${fileId}`}, 0))`;
}

export async function deletePanel(sql: Db, accountId: string, id: string): Promise<boolean> {
  const result = await sql`delete from lab_panels where id = ${id} and account_id = ${accountId}`;
  return result.count === 1;
}

export interface AnalyteRow {
  panelId: string;
  collectedAt: string;
  result: LabResult;
}

/**
 * Every result of the account's panels with one of these LOINC codes or (lower-cased) names,
 * oldest panel first, in the order the panel lists them.
 */
export async function listAnalyteResults(
  sql: Db,
  accountId: string,
  match: { codes: string[]; names: string[] },
): Promise<AnalyteRow[]> {
  return sql<AnalyteRow[]>`
    select p.id as "panelId", ${iso(sql, "p.collected_at")} as "collectedAt", r.value as result
    from lab_panels p cross join lateral jsonb_array_elements(p.results) with ordinality as r(value, n)
    where p.account_id = ${accountId}
      and (r.value->>'code' = any(${match.codes}::text[]) or lower(r.value->>'name') = any(${match.names}::text[]))
    order by p.collected_at, p.id, r.n`;
}

/** Every result of the account's panels collected on these UTC days (days since the epoch). */
export async function listResultsOnDays(
  sql: Db,
  accountId: string,
  days: number[],
): Promise<{ collectedAt: string; result: LabResult }[]> {
  if (days.length === 0) return [];
  return sql<{ collectedAt: string; result: LabResult }[]>`
    select ${iso(sql, "p.collected_at")} as "collectedAt", r.value as result
    from lab_panels p cross join lateral jsonb_array_elements(p.results) as r(value)
    where p.account_id = ${accountId}
      and p.collected_at >= to_timestamp(${Math.min(...days) * 86400})
      and p.collected_at < to_timestamp(${(Math.max(...days) + 1) * 86400})
      and floor(extract(epoch from p.collected_at) / 86400)::int = any(${days}::int[])`;
}
