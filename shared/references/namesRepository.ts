import type { Db } from "../db/sql";

/**
 * Every medication name the reference cache holds an answer for, lowercased, with the ingredient it
 * stands for when the cache says (a brand on a label → the label's first generic name): RxNorm
 * concept, ingredient and brand names, and the generic and brand names on cached FDA labels.
 */
export async function listCachedMedicationNames(
  sql: Db,
  limit = 20_000,
  /** Only names starting with this (lowercase); in alphabetical order either way. */
  prefix = "",
): Promise<{ name: string; generic: string | null }[]> {
  return sql<{ name: string; generic: string | null }[]>`
    select distinct on (lower(names.name)) lower(names.name) as name, lower(names.generic) as generic
    from reference_cache cache
    cross join lateral (
      select cache.value->>'name' as name, null as generic
      union all select jsonb_array_elements(coalesce(cache.value->'ingredients', '[]'::jsonb))->>'name', null
      union all select jsonb_array_elements(coalesce(cache.value->'brands', '[]'::jsonb))->>'name', cache.value->>'name'
      union all select jsonb_array_elements_text(coalesce(cache.value->'brandNames', '[]'::jsonb)),
        split_part(cache.value->'genericNames'->>0, ' ', 1)
      union all select jsonb_array_elements_text(coalesce(cache.value->'genericNames', '[]'::jsonb)), null
    ) as names
    where (cache.value->>'found')::boolean is true and length(names.name) between 3 and 80
      and starts_with(lower(names.name), ${prefix})
    order by lower(names.name), names.generic nulls last
    limit ${limit}`;
}
