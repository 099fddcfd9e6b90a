import { type Meilisearch, searchIndex } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";

/** Meilisearch's default `maxValuesPerFacet` (PAPERS_SETTINGS leaves it). */
const MAX_VALUES_PER_FACET = 100;

export interface PaperFacets {
  totalHits: number;
  categories: Record<string, number>;
  primaryCategories: Record<string, number>;
  /** Archives (`astro-ph` for `astro-ph.CO`): about 40 in arXiv, so this list is complete. */
  archives: Record<string, number>;
  /** True when a distribution may be cut at Meilisearch's 100 values per facet. */
  truncated: boolean;
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
 * values per facet (its default `maxValuesPerFacet`) in alphabetical order (its default
 * `sortFacetValuesBy`), so a broad query's category list can be cut; `truncated` says so.
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
    facets: ["categories", "primaryCategory", "categoryArchives", "submittedTs"],
    hitsPerPage: 0,
    page: 1,
  })) as unknown as FacetResult;
  const stats = result.facetStats?.submittedTs;
  const distribution = result.facetDistribution ?? {};
  return {
    totalHits: result.totalHits ?? result.estimatedTotalHits ?? 0,
    categories: distribution.categories ?? {},
    primaryCategories: distribution.primaryCategory ?? {},
    archives: distribution.categoryArchives ?? {},
    truncated: ["categories", "primaryCategory", "categoryArchives"].some(
      (facet) => Object.keys(distribution[facet] ?? {}).length >= MAX_VALUES_PER_FACET,
    ),
    submitted: stats ? { min: stats.min, max: stats.max } : null,
  };
}
