import type { PaperPage } from "../shared/papers/page";
import type { Paper } from "../shared/papers/record";
import { type Meilisearch, searchIndex } from "./client";
import { PAPER_FIELDS } from "./papers";
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
  const result = await searchIndex<Paper>(
    meili,
    indexUid(indexPrefix, "papers"),
    titleSearchBody(input.q, offset, input.limit),
  );
  return toPage(result.hits, input.page, input.limit);
}

/** What title search sends to Meilisearch (the bench sends the same bodies straight to Meilisearch). */
export function titleSearchBody(q: string, offset: number, limit: number) {
  return {
    q,
    attributesToSearchOn: ["title"],
    attributesToRetrieve: PAPER_FIELDS,
    matchingStrategy: "all",
    offset,
    limit: Math.min(limit + 1, MAX_REACHABLE_HITS - offset),
  };
}

/** A page from up to `limit + 1` hits: the extra one only says whether there is a next page. */
export function toPage(hits: Paper[], page: number, limit: number): PaperPage {
  const hasMore = hits.length > limit;
  if (hasMore) hits.length = limit;
  return { data: hits, pagination: { page, limit, hasMore, nextPage: hasMore ? page + 1 : null } };
}

export function emptyPage(page: number, limit: number): PaperPage {
  return { data: [], pagination: { page, limit, hasMore: false, nextPage: null } };
}
