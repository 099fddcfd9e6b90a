import type { Db } from "../db/sql";
import type { Paper } from "../records/paper";

/** Columns as the API names them; `links` is derived from the id. */
const SELECT = `
  id, extracted_id as "extractedID", id as "baseArxivID", title, abstract, authors,
  authors_parsed as "authorsParsed", submitter, comments, journal_ref as "journalRef", doi,
  report_no as "reportNo", categories, primary_category as "primaryCategory", license, versions,
  submitted_at as "submittedDate", last_updated_at as "lastUpdatedDate"`;

type PaperRow = Omit<Paper, "links" | "submittedDate" | "lastUpdatedDate"> & {
  submittedDate: Date;
  lastUpdatedDate: Date;
};

function toPaper(row: PaperRow): Paper {
  return {
    ...row,
    submittedDate: row.submittedDate.toISOString(),
    lastUpdatedDate: row.lastUpdatedDate.toISOString(),
    links: { abs: `https://arxiv.org/abs/${row.id}`, pdf: `https://arxiv.org/pdf/${row.id}` },
  };
}

/**
 * Inserts or updates papers by id in one statement (the batch travels as one JSON parameter).
 * Idempotent: re-running a batch changes nothing but `updated_at` of rows whose content changed.
 */
export async function upsertPapers(sql: Db, papers: Paper[]): Promise<void> {
  if (papers.length === 0) return;
  await sql`
    insert into papers (id, extracted_id, title, abstract, authors, authors_parsed, submitter, comments,
      journal_ref, doi, report_no, categories, primary_category, license, versions, submitted_at, last_updated_at)
    select p.id, p."extractedID", p.title, p.abstract, p.authors, p."authorsParsed", p.submitter, p.comments,
      p."journalRef", p.doi, p."reportNo", p.categories, p."primaryCategory", p.license, p.versions,
      p."submittedDate", p."lastUpdatedDate"
    from jsonb_to_recordset(${sql.json(papers as never)}::jsonb) as p(
      id text, "extractedID" text, title text, abstract text, authors text, "authorsParsed" jsonb,
      submitter text, comments text, "journalRef" text, doi text, "reportNo" text, categories text[],
      "primaryCategory" text, license text, versions jsonb, "submittedDate" timestamptz, "lastUpdatedDate" timestamptz)
    on conflict (id) do update set
      extracted_id = excluded.extracted_id, title = excluded.title, abstract = excluded.abstract,
      authors = excluded.authors, authors_parsed = excluded.authors_parsed, submitter = excluded.submitter,
      comments = excluded.comments, journal_ref = excluded.journal_ref, doi = excluded.doi,
      report_no = excluded.report_no, categories = excluded.categories,
      primary_category = excluded.primary_category, license = excluded.license, versions = excluded.versions,
      submitted_at = excluded.submitted_at, last_updated_at = excluded.last_updated_at, updated_at = now()
    where (papers.extracted_id, papers.title, papers.abstract, papers.authors, papers.comments, papers.journal_ref,
      papers.doi, papers.report_no, papers.categories, papers.license, papers.versions)
      is distinct from (excluded.extracted_id, excluded.title, excluded.abstract, excluded.authors, excluded.comments,
      excluded.journal_ref, excluded.doi, excluded.report_no, excluded.categories, excluded.license, excluded.versions)`;
}

export async function findPaperById(sql: Db, id: string): Promise<Paper | undefined> {
  const [row] = await sql.unsafe<PaperRow[]>(`select ${SELECT} from papers where id = $1`, [id]);
  return row ? toPaper(row) : undefined;
}

/** The last id of the next `limit` papers after `afterId` in id order (keyset paging for reindexing). */
export async function nextPaperIdAfter(
  sql: Db,
  afterId: string,
  limit: number,
): Promise<{ last: string; count: number } | undefined> {
  const [row] = await sql<{ last: string | null; count: string }[]>`
    select max(id) as last, count(*) from (select id from papers where id > ${afterId} order by id limit ${limit}) page`;
  return row?.last ? { last: row.last, count: Number(row.count) } : undefined;
}

/** Papers with `after < id <= through`, in id order. */
export async function listPapersInRange(sql: Db, after: string, through: string): Promise<Paper[]> {
  const rows = await sql.unsafe<PaperRow[]>(`select ${SELECT} from papers where id > $1 and id <= $2 order by id`, [
    after,
    through,
  ]);
  return rows.map(toPaper);
}

export async function countPapers(sql: Db): Promise<number> {
  const [row] = await sql<{ count: string }[]>`select count(*) from papers`;
  return Number(row?.count ?? 0);
}

/**
 * Up to `limit` paper ids starting with `prefix`, in id order. The lower bound lets the primary key
 * start at the prefix in any collation; `starts_with` decides (a computed upper bound would depend
 * on how the database's collation orders punctuation).
 */
export async function listPaperIdsByPrefix(sql: Db, prefix: string, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from papers where id >= ${prefix} and starts_with(id, ${prefix}) order by id limit ${limit}`;
  return rows.map((row) => row.id);
}

export async function countPapersByPrefix(sql: Db, prefix: string): Promise<number> {
  const [row] = await sql<{ count: string }[]>`
    select count(*) from papers where id >= ${prefix} and starts_with(id, ${prefix})`;
  return Number(row?.count ?? 0);
}
