import type { SystemCtx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { listCachedMedicationNames } from "./namesRepository";

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
