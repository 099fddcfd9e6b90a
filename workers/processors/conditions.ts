import type { Deps } from "../../shared/context/deps";
import { indexConditions } from "../../shared/indexing/conditions";
import type { JobPayload } from "../../shared/jobs/catalog";

export function indexConditionBatch(deps: Deps, payload: JobPayload<"conditions.index-batch">) {
  return indexConditions(deps, payload);
}
