import type { SystemCtx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { countPapersByPrefix, listPaperIdsByPrefix } from "./repository";

/** Characters of a stored (base) arXiv id: `2401.01234`, `hep-th/9901001`, `math.AG/0101001`. */
const ID_CHARS = /^[A-Za-z0-9./-]*$/;
const LONGEST_ID = 40;

/**
 * The stored paper ids that start with `prefix` (at most `limit`, in id order) and how many there
 * are. A prefix no id could start with finds nothing without a query.
 */
export async function paperIdsStartingWith(
  ctx: Pick<SystemCtx, "sql">,
  input: { prefix: string; limit: number },
): Promise<{ ids: string[]; total: number }> {
  const { prefix, limit } = input;
  if (prefix.length > LONGEST_ID || !ID_CHARS.test(prefix)) return { ids: [], total: 0 };
  const ids = await db(listPaperIdsByPrefix(ctx.sql, prefix, limit + 1));
  // Counted only when the page is not the whole answer: a short prefix matches most of the table.
  const total = ids.length > limit ? await db(countPapersByPrefix(ctx.sql, prefix)) : ids.length;
  return { ids: ids.slice(0, limit), total };
}
