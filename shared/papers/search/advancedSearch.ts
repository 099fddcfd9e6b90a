import { type Meilisearch, searchIndex } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import { baseArxivId, type Paper } from "../../records/paper";
import { noPapers, papersJson, papersOf } from "../page";
import type { SortBy, SortOrder } from "../schemas";
import { fromPaperHit, PAPER_HIT_FIELDS, type PaperHit, paperKey, SEARCHABLE_FIELDS } from "./document";
import {
  emptyPage,
  MAX_REACHABLE_HITS,
  type PaperPage,
  type PaperPageJson,
  pageWindow,
  searchPaperPage,
} from "./titleSearch";

export const FILTER_KEYS = ["all", "id", "ti", "au", "abs", "cat", "jr", "co", "rn"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

/** Which fields each word-aware filter searches. */
const TEXT_FIELDS: Record<Exclude<FilterKey, "id" | "cat">, string[]> = {
  all: SEARCHABLE_FIELDS,
  ti: ["title"],
  au: ["authors", "authorNames"],
  abs: ["abstract"],
  jr: ["journalRef"],
  co: ["comments"],
  rn: ["reportNo"],
};

const SORT_FIELD: Record<Exclude<SortBy, "relevance">, string> = {
  submittedDate: "submittedTs",
  lastUpdatedDate: "updatedTs",
};

interface TextCondition {
  q: string;
  on: string[];
}

/** Inclusive UTC day ranges (`YYYY-MM-DD`) on the submission and last-update dates. */
export interface DateRanges {
  submittedFrom?: string;
  submittedTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
}

const DAY_MS = 86_400_000;

/** Meilisearch filter expressions for the date ranges: `from` at 00:00 UTC, `to` through 23:59:59.999. */
export function dateFilters(ranges: DateRanges): string[] {
  const out: string[] = [];
  const add = (field: string, from?: string, to?: string) => {
    if (from) out.push(`${field} >= ${Date.parse(`${from}T00:00:00Z`)}`);
    if (to) out.push(`${field} < ${Date.parse(`${to}T00:00:00Z`) + DAY_MS}`);
  };
  add("submittedTs", ranges.submittedFrom, ranges.submittedTo);
  add("updatedTs", ranges.updatedFrom, ranges.updatedTo);
  return out;
}

export interface AdvancedQuery {
  filters: Filters;
  dates?: DateRanges;
  /** Return, per paper, the matched words of each text filter's fields wrapped in `<em>…</em>`. */
  highlight?: boolean;
  page: number;
  limit: number;
  sortBy: SortBy;
  sortOrder: SortOrder;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * Splits the filters into word-aware text conditions (each a Meilisearch query on its fields) and
 * exact Meilisearch filter expressions (`id`, `cat`). `au` takes a comma-separated list; every
 * name must match.
 */
export function plan(filters: Filters): { texts: TextCondition[]; exact: string[] } {
  const texts: TextCondition[] = [];
  const exact: string[] = [];
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (!value) continue;
    if (key === "id") {
      exact.push(`id = ${quote(baseArxivId(value))}`);
    } else if (key === "cat") {
      // Exact category, or every category of an archive (`astro-ph` covers `astro-ph.CO`).
      exact.push(`(categories = ${quote(value)} OR categoryArchives = ${quote(value)})`);
    } else if (key === "au") {
      for (const name of value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)) {
        texts.push({ q: name, on: TEXT_FIELDS.au });
      }
    } else {
      texts.push({ q: value, on: TEXT_FIELDS[key] });
    }
  }
  return { texts, exact };
}

interface SearchPlan {
  texts: TextCondition[];
  base: { filter?: string; sort?: string[]; matchingStrategy: "all" };
  offset: number;
}

function searchPlan(query: AdvancedQuery): SearchPlan {
  const { texts, exact: fieldFilters } = plan(query.filters);
  const exact = [...fieldFilters, ...dateFilters(query.dates ?? {})];
  const sort =
    query.sortBy === "relevance"
      ? undefined
      : [`${SORT_FIELD[query.sortBy]}:${query.sortOrder === "ascending" ? "asc" : "desc"}`];
  const filter = exact.length > 0 ? exact.join(" AND ") : undefined;
  return { texts, base: { filter, sort, matchingStrategy: "all" }, offset: query.page * query.limit };
}

/**
 * The one Meilisearch search of a fielded query with at most one text condition (the common case),
 * or undefined when there are several. The bench sends the same bodies straight to Meilisearch.
 */
export function fieldedSearchBody(query: AdvancedQuery): object | undefined {
  return singleSearchBody(searchPlan(query), query);
}

function singleSearchBody({ texts, base }: SearchPlan, query: AdvancedQuery): object | undefined {
  if (texts.length > 1) return undefined;
  const [text] = texts;
  return {
    q: text?.q ?? "",
    ...base,
    ...(text ? { attributesToSearchOn: text.on } : {}),
    attributesToRetrieve: PAPER_HIT_FIELDS,
    ...pageWindow(query.page, query.limit),
  };
}

/**
 * Fielded search. One text condition (the common case) is a single Meilisearch query with the exact
 * filters and the sort; several are intersected here, in the order of the first, since Meilisearch
 * takes one query per search. `hasMore` is exact either way: from Meilisearch's exhaustive count, or
 * from one extra id of the intersection.
 */
export async function searchAdvanced(
  meili: Meilisearch,
  indexPrefix: string,
  query: AdvancedQuery,
): Promise<PaperPageJson> {
  const uid = indexUid(indexPrefix, "papers");
  const planned = searchPlan(query);
  if (planned.offset >= MAX_REACHABLE_HITS) return emptyPage(query.page, query.limit);
  const single = singleSearchBody(planned, query);
  if (!single) return searchIntersection(meili, uid, planned, query);
  const page = await searchPaperPage(meili, uid, single, query);
  if (!query.highlight || noPapers(page)) return page;
  const papers = papersOf(page);
  return toJson(await withHighlights(meili, uid, { data: papers, pagination: page.pagination }, planned.texts));
}

/** Several text conditions: the page of the papers matching all of them, in the first one's order. */
async function searchIntersection(
  meili: Meilisearch,
  uid: string,
  planned: SearchPlan,
  query: AdvancedQuery,
): Promise<PaperPageJson> {
  const matching = await keysMatchingAll(meili, uid, planned);
  const window = matching.slice(planned.offset, planned.offset + query.limit + 1);
  if (window.length === 0) return emptyPage(query.page, query.limit);
  const hits = await papersByKey(meili, uid, window);
  const hasMore = hits.length > query.limit;
  const page: PaperPage = {
    data: hits.slice(0, query.limit),
    pagination: { page: query.page, limit: query.limit, hasMore, nextPage: hasMore ? query.page + 1 : null },
  };
  return toJson(query.highlight ? await withHighlights(meili, uid, page, planned.texts) : page);
}

/** The keys of the papers every text condition matches (each within the reachable hits), in the first one's order. */
async function keysMatchingAll(meili: Meilisearch, uid: string, { texts, base }: SearchPlan): Promise<string[]> {
  const lists = await Promise.all(
    texts.map((text) =>
      searchIndex<{ pk: string }>(meili, uid, {
        q: text.q,
        ...base,
        attributesToSearchOn: text.on,
        limit: MAX_REACHABLE_HITS,
        attributesToRetrieve: ["pk"],
      }).then((result) => result.hits.map((hit) => hit.pk)),
    ),
  );
  const [first = [], ...rest] = lists;
  const others = rest.map((list) => new Set(list));
  return first.filter((pk) => others.every((set) => set.has(pk)));
}

/** The papers of these keys, in their order; a key whose document is gone by now is skipped. */
async function papersByKey(meili: Meilisearch, uid: string, keys: string[]): Promise<Paper[]> {
  const found = await searchIndex<PaperHit>(meili, uid, {
    q: "",
    filter: `pk IN [${keys.map(quote).join(", ")}]`,
    attributesToRetrieve: PAPER_HIT_FIELDS,
    limit: keys.length,
  });
  const byKey = new Map(found.hits.map(fromPaperHit).map((paper) => [paperKey(paper.id), paper]));
  return keys.map((pk) => byKey.get(pk)).filter((hit): hit is Paper => hit !== undefined);
}

function toJson(page: PaperPage): PaperPageJson {
  return { data: papersJson(page.data), pagination: page.pagination };
}

export type Highlights = Record<string, string>;

interface HighlightHit {
  id: string;
  _formatted?: Record<string, unknown>;
  _matchesPosition?: Record<string, unknown>;
}

/**
 * Adds `highlight` to each paper of a page: for every text condition, one search restricted to the
 * page's papers returns Meilisearch's formatted fields; only fields that actually matched are kept.
 */
async function withHighlights(
  meili: Meilisearch,
  uid: string,
  page: PaperPage,
  texts: TextCondition[],
): Promise<PaperPage> {
  if (page.data.length === 0) return page;
  const highlights = new Map<string, Highlights>(page.data.map((paper) => [paper.id, {}]));
  const keys = page.data.map((paper) => quote(paperKey(paper.id)));
  for (const text of texts) {
    const result = await searchIndex<HighlightHit>(meili, uid, {
      q: text.q,
      attributesToSearchOn: text.on,
      matchingStrategy: "all",
      filter: `pk IN [${keys.join(", ")}]`,
      limit: keys.length,
      attributesToRetrieve: ["id"],
      attributesToHighlight: text.on,
      highlightPreTag: "<em>",
      highlightPostTag: "</em>",
      showMatchesPosition: true,
    });
    for (const hit of result.hits) {
      const target = highlights.get(String(hit.id));
      if (target) addMatchedFields(target, hit);
    }
  }
  return { ...page, data: page.data.map((paper) => ({ ...paper, highlight: highlights.get(paper.id) ?? {} })) };
}

/** The hit's fields that matched, as Meilisearch formatted them; of a list field, only the matching items. */
function addMatchedFields(target: Highlights, hit: HighlightHit): void {
  const formatted = hit._formatted ?? {};
  for (const field of Object.keys(hit._matchesPosition ?? {})) {
    const name = field.split(".")[0] as string;
    const value = formatted[name];
    if (value === undefined || value === null) continue;
    target[name] = Array.isArray(value) ? value.filter((v) => String(v).includes("<em>")).join("; ") : String(value);
  }
}
