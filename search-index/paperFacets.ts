import { type Meilisearch, searchIndex } from "./client";
import { indexUid } from "./settings";

export interface PaperFacets {
  totalHits: number;
  categories: Record<string, number>;
  primaryCategories: Record<string, number>;
  /** Epoch ms of the earliest and latest submission among the matches; null without matches. */
  submitted: { min: number; max: number } | null;
}

interface FacetResult {
  totalHits?: number;
  estimatedTotalHits?: number;
  facetDistribution?: Record<string, Record<string, number>>;
  facetStats?: Record<string, { min: number; max: number }>;
}

/**
 * Category counts (and the submission-date range) of the papers matching `q` in `fields`, from
 * Meilisearch facets on attributes that are already filterable (PAPERS_SETTINGS). Per-year counts
 * would need a filterable year attribute, a settings change and a reindex, so there are none; the
 * date range comes from the numeric facet stats of `submittedTs`. Meilisearch returns at most 100
 * values per facet (its default `maxValuesPerFacet`), the most frequent first.
 */
export async function searchPaperFacets(
  meili: Meilisearch,
  indexPrefix: string,
  input: { q: string; fields?: string[]; filter?: string },
): Promise<PaperFacets> {
  const result = (await searchIndex(meili, indexUid(indexPrefix, "papers"), {
    q: input.q,
    ...(input.fields ? { attributesToSearchOn: input.fields } : {}),
    ...(input.filter ? { filter: input.filter } : {}),
    matchingStrategy: "all",
    facets: ["categories", "primaryCategory", "submittedTs"],
    hitsPerPage: 0,
    page: 1,
  })) as unknown as FacetResult;
  const stats = result.facetStats?.submittedTs;
  return {
    totalHits: result.totalHits ?? result.estimatedTotalHits ?? 0,
    categories: result.facetDistribution?.categories ?? {},
    primaryCategories: result.facetDistribution?.primaryCategory ?? {},
    submitted: stats ? { min: stats.min, max: stats.max } : null,
  };
}
