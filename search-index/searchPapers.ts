import type { PaperPage } from "../shared/papers/page";
import type { Meilisearch } from "./client";
import { fromPaperDocument, type PaperDocument } from "./papers";
import { indexUid } from "./settings";

export type { PaperPage };

/**
 * Meilisearch returns at most `maxTotalHits` (see PAPERS_SETTINGS) hits per query; pages beyond
 * that are empty with `hasMore: false`, never an error.
 */
export const MAX_REACHABLE_HITS = 100_000;

/**
 * Title search: every query word must match a whole word of the title (case and diacritics folded,
 * no typos, no prefixes), in any order; `"quoted words"` must appear together. One extra hit is
 * fetched so `hasMore` is exact: a page with `hasMore: true` is always followed by a non-empty one.
 */
export async function searchTitles(
  meili: Meilisearch,
  indexPrefix: string,
  input: { q: string; page: number; limit: number },
): Promise<PaperPage> {
  const offset = input.page * input.limit;
  if (offset >= MAX_REACHABLE_HITS) return emptyPage(input.page, input.limit);
  const result = await meili.index<PaperDocument>(indexUid(indexPrefix, "papers")).search(input.q, {
    attributesToSearchOn: ["title"],
    matchingStrategy: "all",
    offset,
    limit: Math.min(input.limit + 1, MAX_REACHABLE_HITS - offset),
  });
  const hasMore = result.hits.length > input.limit;
  return {
    data: result.hits.slice(0, input.limit).map(fromPaperDocument),
    pagination: { page: input.page, limit: input.limit, hasMore, nextPage: hasMore ? input.page + 1 : null },
  };
}

export function emptyPage(page: number, limit: number): PaperPage {
  return { data: [], pagination: { page, limit, hasMore: false, nextPage: null } };
}
