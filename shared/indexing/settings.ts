import type { Meilisearch } from "../../search-index/client";
import { applyIndexes, type IndexDefinition } from "../../search-index/indexes";
import { CONDITIONS_SETTINGS } from "../conditions/search/document";
import { PAPERS_SETTINGS } from "../papers/search/document";

/** The service's Meilisearch indexes, as code; their settings sit beside each domain's documents. */
export const INDEXES: IndexDefinition[] = [
  // arXiv ids contain "." and "/", which Meilisearch primary keys do not allow; `pk` is a safe mapping.
  { name: "papers", primaryKey: "pk", settings: PAPERS_SETTINGS, layoutField: "record" },
  { name: "conditions", primaryKey: "pk", settings: CONDITIONS_SETTINGS },
];

/**
 * Creates each index when missing and (re)applies its settings. Returns the indexes it emptied
 * (an earlier document layout): their documents must be rebuilt from PostgreSQL.
 */
export function applyIndexSettings(meili: Meilisearch, prefix: string): Promise<string[]> {
  return applyIndexes(meili, prefix, INDEXES);
}
