import { indexConditions } from "../../search-index/ingestConditions";
import type { Deps } from "../../shared/deps";
import type { JobPayload } from "../../shared/jobs";

export function indexConditionBatch(deps: Deps, payload: JobPayload<"conditions.index-batch">) {
  return indexConditions({ sql: deps.sql, meili: deps.meili, indexPrefix: deps.env.MEILI_INDEX_PREFIX }, payload);
}
