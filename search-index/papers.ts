import type { Settings } from "meilisearch";
import { type Paper, PaperSchema } from "../shared/papers/record";

/** Meilisearch primary keys allow only `[A-Za-z0-9_-]`; arXiv ids use `.` and `/`, which never meet `_`. */
export function paperKey(id: string): string {
  return id.replaceAll(".", "_").replaceAll("/", "__");
}

/** What Meilisearch stores per paper: the API record plus fields shaped for matching and sorting. */
export type PaperDocument = Paper & {
  pk: string;
  /** `First Last` per parsed author, so author names match as written and as parsed. */
  authorNames: string[];
  /** Archives of the categories (`astro-ph` for `astro-ph.CO`), for archive-level category filters. */
  categoryArchives: string[];
  /** Dates as epoch milliseconds: Meilisearch sorts and filters numbers, not date strings. */
  submittedTs: number;
  updatedTs: number;
};

export function toPaperDocument(paper: Paper): PaperDocument {
  return {
    ...paper,
    pk: paperKey(paper.id),
    authorNames: paper.authorsParsed.map((a) => [a.first, a.last, a.suffix].filter(Boolean).join(" ")),
    categoryArchives: [...new Set(paper.categories.map((category) => category.split(".")[0] as string))],
    submittedTs: Date.parse(paper.submittedDate),
    updatedTs: Date.parse(paper.lastUpdatedDate),
  };
}

/**
 * The API record's fields. Searches retrieve only these, so a hit is already the API's paper: the
 * search-only fields are neither serialised by Meilisearch, nor sent, parsed and stripped here.
 */
export const PAPER_FIELDS = Object.keys(PaperSchema.properties);

/** Strips the search-only fields again, so a search hit is exactly the API's paper record. */
export function fromPaperDocument(document: PaperDocument): Paper {
  const {
    pk: _pk,
    authorNames: _names,
    categoryArchives: _archives,
    submittedTs: _s,
    updatedTs: _u,
    ...paper
  } = document;
  return paper;
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
    "extractedID",
    "baseArxivID",
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
