import { indexUid } from "../../search-index/indexes";
import { requireSucceeded } from "../../search-index/taskWatcher";
import { deleteConditions, upsertConditions } from "../conditions/repository";
import { conditionKey, toConditionDocument } from "../conditions/search/document";
import type { SystemCtx } from "../context/ctx";
import type { ConditionTerm } from "../records/conditionTerm";

/**
 * Stores a batch of terms: PostgreSQL first (the source of truth), then Meilisearch, waiting until
 * Meilisearch has applied it; ids obsolete in the loaded file are removed from both. Every write is
 * keyed by MONDO id, so a retried or repeated batch leaves exactly one copy of each term.
 */
export async function indexConditions(
  ctx: Pick<SystemCtx, "sql" | "meili" | "env">,
  batch: { terms: ConditionTerm[]; obsolete: string[] },
): Promise<{ terms: number; obsolete: number }> {
  await ctx.sql.begin(async (tx) => {
    await upsertConditions(tx, batch.terms);
    await deleteConditions(tx, batch.obsolete);
  });
  const index = ctx.meili.index(indexUid(ctx.env.MEILI_INDEX_PREFIX, "conditions"));
  const wait = { timeout: 120_000, interval: 50 };
  if (batch.terms.length > 0) {
    requireSucceeded(
      await index.addDocuments(batch.terms.map(toConditionDocument), { primaryKey: "pk" }).waitTask(wait),
    );
  }
  if (batch.obsolete.length > 0)
    requireSucceeded(await index.deleteDocuments(batch.obsolete.map(conditionKey)).waitTask(wait));
  return { terms: batch.terms.length, obsolete: batch.obsolete.length };
}
