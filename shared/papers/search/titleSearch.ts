import { type Meilisearch, searchBytes } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import { isUnknownSearchField } from "../../../search-index/searchBatches";
import { type PaperPage, type PaperPageJson, papersJson } from "../page";
import { PAPER_HIT_FIELDS, type PaperHit, paperHitsAt, paperHitsJson } from "./document";

export type { PaperPage, PaperPageJson };

/**
 * Meilisearch returns at most `maxTotalHits` (see PAPERS_SETTINGS) hits per query; pages beyond
 * that are empty with `hasMore: false`, never an error.
 */
export const MAX_REACHABLE_HITS = 100_000;

/**
 * Title search: every query word must match a whole word of the title (case and diacritics folded,
 * no typos, no prefixes), in any order; `"quoted words"` must appear together.
 */
export async function searchTitles(
  meili: Meilisearch,
  indexPrefix: string,
  input: { q: string; page: number; limit: number },
): Promise<PaperPageJson> {
  if (input.page * input.limit >= MAX_REACHABLE_HITS) return emptyPage(input.page, input.limit);
  return searchPaperPage(
    meili,
    indexUid(indexPrefix, "papers"),
    titleSearchBody(input.q, input.page, input.limit),
    input,
  );
}

/** One Meilisearch search in page mode, as a page of papers. */
export async function searchPaperPage(
  meili: Meilisearch,
  uid: string,
  body: object,
  window: { page: number; limit: number },
): Promise<PaperPageJson> {
  const { page, limit } = window;
  const answer = await searchBytes(meili, uid, body).catch((error: unknown) => {
    if (isUnknownSearchField(error)) return undefined;
    throw error;
  });
  if (!answer) return emptyPage(page, limit);
  const { papers, totalHits } = readPaperAnswer(answer);
  const hasMore = (page + 1) * limit < Math.min(totalHits, MAX_REACHABLE_HITS);
  return { data: papers, pagination: { page, limit, hasMore, nextPage: hasMore ? page + 1 : null } };
}

const HITS_KEY = Buffer.from('"hits":');

/**
 * A search answer's papers and `totalHits`. Meilisearch writes `hits` first (after `indexUid` in a
 * multi-search, which holds no quote); the records are read from the bytes (`paperHitsAt`) and only
 * the short rest is parsed. An answer of another layout is parsed whole, so a Meilisearch upgrade
 * that changes it stays correct.
 */
export function readPaperAnswer(bytes: Buffer): { papers: Uint8Array; totalHits: number } {
  const key = bytes.indexOf(HITS_KEY);
  const hits = key === -1 ? undefined : paperHitsAt(bytes, key + HITS_KEY.length);
  if (hits && bytes[hits.end + 1] === 0x2c) {
    try {
      const rest = JSON.parse(`{${bytes.toString("utf8", hits.end + 2)}`) as { totalHits?: unknown };
      if (typeof rest.totalHits === "number") return { papers: hits.papers, totalHits: rest.totalHits };
    } catch {
      // Not the expected layout after all: parsed whole below.
    }
  }
  const whole = JSON.parse(bytes.toString()) as { hits: PaperHit[]; totalHits: number };
  return { papers: paperHitsJson(whole.hits), totalHits: whole.totalHits };
}

/** What title search sends to Meilisearch (the bench sends the same bodies straight to Meilisearch). */
export function titleSearchBody(q: string, page: number, limit: number) {
  return {
    q,
    attributesToSearchOn: ["title"],
    attributesToRetrieve: PAPER_HIT_FIELDS,
    matchingStrategy: "all",
    ...pageWindow(page, limit),
  };
}

/**
 * Meilisearch's page mode (`page`, `hitsPerPage`) counts every match (`totalHits`, capped at
 * `maxTotalHits`), so `hasMore` is exact: a page with `hasMore: true` is always followed by a
 * non-empty one. Measured, the count costs Meilisearch no more CPU than fetching one extra hit to
 * find out, and the hits can be passed on as they are.
 */
export function pageWindow(page: number, limit: number) {
  return { page: page + 1, hitsPerPage: limit };
}

export function emptyPage(page: number, limit: number): PaperPageJson {
  return { data: papersJson([]), pagination: { page, limit, hasMore: false, nextPage: null } };
}
