import type { Settings } from "meilisearch";
import type { Paper } from "../shared/papers/record";

/** Meilisearch primary keys allow only `[A-Za-z0-9_-]`; arXiv ids use `.` and `/`, which never meet `_`. */
export function paperKey(id: string): string {
  return id.replaceAll(".", "_").replaceAll("/", "__");
}

/**
 * What Meilisearch stores per paper: the fields searches match, filter, sort and facet on, plus
 * `record`, the API's paper as JSON text. Searches retrieve only `record`. Meilisearch turns every
 * field of a hit into JSON values whatever a search retrieves, so a hit's cost grows with what the
 * document holds: measured on the 145k papers, 20 hits with the API's fields as separate (nested)
 * attributes cost 1.39 ms of Meilisearch CPU per search, the same hits as one `record` string
 * 0.84–0.89 ms, and unpacking the records costs the API ~0.06 ms (docs/benchmarks.md, session 18).
 * Display-only fields (parsed authors, versions, licence, links, ISO dates) live only in `record`.
 */
export interface PaperDocument {
  pk: string;
  id: string;
  title: string;
  abstract: string | null;
  authors: string;
  /** `First Last` per parsed author, so author names match as written and as parsed. */
  authorNames: string[];
  submitter: string | null;
  comments: string | null;
  journalRef: string | null;
  doi: string | null;
  reportNo: string | null;
  categories: string[];
  primaryCategory: string;
  /** Archives of the categories (`astro-ph` for `astro-ph.CO`), for archive-level category filters. */
  categoryArchives: string[];
  /** Dates as epoch milliseconds: Meilisearch sorts and filters numbers, not date strings. */
  submittedTs: number;
  updatedTs: number;
  /** The API's paper record, serialised. */
  record: string;
}

export function toPaperDocument(paper: Paper): PaperDocument {
  return {
    pk: paperKey(paper.id),
    id: paper.id,
    title: paper.title,
    abstract: paper.abstract,
    authors: paper.authors,
    authorNames: paper.authorsParsed.map((a) => [a.first, a.last, a.suffix].filter(Boolean).join(" ")),
    submitter: paper.submitter,
    comments: paper.comments,
    journalRef: paper.journalRef,
    doi: paper.doi,
    reportNo: paper.reportNo,
    categories: paper.categories,
    primaryCategory: paper.primaryCategory,
    categoryArchives: [...new Set(paper.categories.map((category) => category.split(".")[0] as string))],
    submittedTs: Date.parse(paper.submittedDate),
    updatedTs: Date.parse(paper.lastUpdatedDate),
    record: JSON.stringify(paper),
  };
}

/** What searches retrieve of a paper document: its record. */
export const PAPER_HIT_FIELDS = ["record"];
export type PaperHit = Pick<PaperDocument, "record">;

/** The paper a search hit carries. */
export function fromPaperHit(hit: PaperHit): Paper {
  return JSON.parse(hit.record) as Paper;
}

/** The papers of some hits as one JSON array, from their records' text (never parsed, never re-serialised). */
export function paperHitsJson(hits: readonly PaperHit[]): Uint8Array {
  return Buffer.from(`[${hits.map((hit) => hit.record).join(",")}]`);
}

/** Every searched field, in ranking order; the `all` filter searches all of them. */
export const SEARCHABLE_FIELDS = [
  "title",
  "authors",
  "authorNames",
  "abstract",
  "submitter",
  "journalRef",
  "categories",
  "comments",
  "doi",
  "reportNo",
];

/**
 * Index settings for papers. Typo tolerance and prefix search are off: users of arXiv search
 * complain about fuzzy and stemmed matches when they meant a word; here a query word matches only
 * that whole word (case and diacritics folded). Without prefix and facet-value search, Meilisearch
 * also skips their per-batch post-processing, most of the cost of indexing a batch.
 */
export const PAPERS_SETTINGS: Settings = {
  searchableAttributes: SEARCHABLE_FIELDS,
  filterableAttributes: [
    "pk",
    "id",
    "categories",
    "primaryCategory",
    "categoryArchives",
    "doi",
    "submittedTs",
    "updatedTs",
  ],
  sortableAttributes: ["submittedTs", "updatedTs"],
  // `sort` first: a date sort orders strictly by date (relevance only breaks ties), instead of
  // sorting within relevance buckets, a common complaint about date sorting elsewhere. Without a
  // sort parameter the rule does nothing.
  rankingRules: ["sort", "words", "typo", "proximity", "attribute", "exactness"],
  typoTolerance: { enabled: false },
  prefixSearch: "disabled",
  facetSearch: false,
  pagination: { maxTotalHits: 100_000 },
};
