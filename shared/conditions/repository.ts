import type { Db } from "../db/sql";
import type { ConditionTerm } from "../records/conditionTerm";

const SELECT = `id, label, definition, synonyms, xrefs, parents, descendants`;

/** A term and the labels of its neighbours, as the condition verbs need it. */
export interface TermRef {
  id: string;
  label: string;
}

/**
 * Inserts or updates terms by MONDO id in one statement (the batch travels as one JSON parameter).
 * Idempotent: re-running a batch only touches `updated_at` of rows whose content changed.
 */
export async function upsertConditions(sql: Db, terms: ConditionTerm[]): Promise<void> {
  if (terms.length === 0) return;
  await sql`
    insert into conditions (id, label, definition, synonyms, xrefs, parents, descendants)
    select t.id, t.label, t.definition, t.synonyms, t.xrefs, t.parents, t.descendants
    from jsonb_to_recordset(${sql.json(terms as never)}::jsonb) as t(
      id text, label text, definition text, synonyms jsonb, xrefs text[], parents text[], descendants integer)
    on conflict (id) do update set
      label = excluded.label, definition = excluded.definition, synonyms = excluded.synonyms,
      xrefs = excluded.xrefs, parents = excluded.parents, descendants = excluded.descendants, updated_at = now()
    where (conditions.label, conditions.definition, conditions.synonyms, conditions.xrefs, conditions.parents,
      conditions.descendants)
      is distinct from (excluded.label, excluded.definition, excluded.synonyms, excluded.xrefs, excluded.parents,
      excluded.descendants)`;
}

/** Removes terms (obsolete in the file being loaded); unknown ids are ignored. */
export async function deleteConditions(sql: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`delete from conditions where id = any(${ids})`;
}

export async function findConditionById(sql: Db, id: string): Promise<ConditionTerm | undefined> {
  const [row] = await sql.unsafe<ConditionTerm[]>(`select ${SELECT} from conditions where id = $1`, [id]);
  return row;
}

/** A term with the labels of its loaded parents and, when asked, its direct subclasses by label. */
export interface ConditionRow extends ConditionTerm {
  parentRefs: TermRef[];
  children: TermRef[] | null;
}

/** One round trip for a term and its neighbours (a lookup's hot path). */
export async function findConditionWithNeighbours(
  sql: Db,
  id: string,
  withChildren: boolean,
): Promise<ConditionRow | undefined> {
  const [row] = await sql<ConditionRow[]>`
    select c.id, c.label, c.definition, c.synonyms, c.xrefs, c.parents, c.descendants,
      coalesce((select json_agg(json_build_object('id', p.id, 'label', p.label))
        from conditions p where p.id = any(c.parents)), '[]') as "parentRefs",
      case when ${withChildren} then coalesce((select json_agg(json_build_object('id', k.id, 'label', k.label)
        order by k.label, k.id) from conditions k where k.parents @> array[c.id]), '[]') end as children
    from conditions c where c.id = ${id}`;
  return row;
}

export async function countConditions(sql: Db): Promise<number> {
  const [row] = await sql<{ count: string }[]>`select count(*) from conditions`;
  return Number(row?.count ?? 0);
}
