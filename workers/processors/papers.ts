import { indexPapers, reindexRange } from "../../search-index/ingest";
import type { Deps } from "../../shared/deps";
import type { JobPayload } from "../../shared/jobs";
import { toPaper } from "../../shared/papers/record";

export function indexPaperBatch(deps: Deps, payload: JobPayload<"papers.index-batch">) {
  return indexPapers(
    { sql: deps.sql, meili: deps.meili, indexPrefix: deps.env.MEILI_INDEX_PREFIX },
    payload.records.map(toPaper),
  );
}

export function reindexPaperRange(deps: Deps, payload: JobPayload<"papers.reindex-range">) {
  return reindexRange(
    { sql: deps.sql, meili: deps.meili, indexPrefix: deps.env.MEILI_INDEX_PREFIX },
    payload.after,
    payload.through,
  );
}
