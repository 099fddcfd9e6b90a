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
  const write = await storePapers(deps, payload.records.map(toPaper));
  payload.records = [];
  return searchApplied(deps, write);
}

export function reindexPaperRange(deps: Deps, payload: JobPayload<"papers.reindex-range">) {
  return reindexRange(deps, payload);
}
