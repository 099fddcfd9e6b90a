import type { Deps } from "../../shared/context/deps";
import { reindexRange, searchApplied, storePapers } from "../../shared/indexing/papers";
import type { JobPayload } from "../../shared/jobs/catalog";
import { toPaper } from "../../shared/records/paper";

/**
 * PostgreSQL, then Meilisearch's task, then the wait for it. While it waits the job holds no
 * records: they are dropped from this process's copy of the job (Redis keeps the job's own, for a
 * retry), so the many jobs in flight that large Meilisearch batches need cost little memory.
 */
export async function indexPaperBatch(deps: Deps, payload: JobPayload<"papers.index-batch">) {
  const ctx = { sql: deps.sql, meili: deps.meili, indexPrefix: deps.env.MEILI_INDEX_PREFIX };
  const write = await storePapers(ctx, payload.records.map(toPaper));
  payload.records = [];
  return searchApplied(ctx, write);
}

export function reindexPaperRange(deps: Deps, payload: JobPayload<"papers.reindex-range">) {
  return reindexRange(
    { sql: deps.sql, meili: deps.meili, indexPrefix: deps.env.MEILI_INDEX_PREFIX },
    payload.after,
    payload.through,
  );
}
