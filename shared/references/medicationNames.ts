import type { SystemCtx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { listCachedMedicationNames } from "./namesRepository";

/**
 * Every medication name the reference cache holds answers for (up to 20,000), with its generic
 * name: the offline model's medication vocabulary. Errors are the database's.
 */
export function cachedMedicationNames(
  ctx: Pick<SystemCtx, "sql">,
): Promise<{ name: string; generic: string | null }[]> {
  return listCachedMedicationNames(ctx.sql);
}

/**
 * Medication names the reference cache holds answers for that start with `prefix` (ignoring
 * case), lowercase and in alphabetical order: names a lookup is known to resolve. Read fresh each
 * time, so a name is offered as soon as a lookup has cached it.
 */
export async function cachedMedicationNamesStartingWith(
  ctx: Pick<SystemCtx, "sql">,
  input: { prefix: string; limit: number },
): Promise<string[]> {
  const rows = await db(listCachedMedicationNames(ctx.sql, input.limit, input.prefix.toLowerCase()));
  return rows.map((row) => row.name);
}
