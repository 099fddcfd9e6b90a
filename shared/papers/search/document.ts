import type { Settings } from "meilisearch";
import type { Paper } from "../../records/paper";

/** Meilisearch primary keys allow only `[A-Za-z0-9_-]`; arXiv ids use `.` and `/`, which never meet `_`. */
export function paperKey(id: string): string {
  return id.replaceAll(".", "_").replaceAll("/", "__");
}

/**
 * What Meilisearch stores per paper: the fields searches match, filter, sort and facet on, plus
 * `record`, the API's paper as base64-encoded JSON. Searches retrieve only `record`. Meilisearch
 * turns every field of a hit into JSON values whatever a search retrieves, so a hit costs less as
 * one string than as the API's fields in separate (nested) attributes. Base64 rather than JSON
 * text: a JSON string would escape every quote of the record, which the API would have to undo,
 * while base64 is found and decoded cheaply (measurements in docs/benchmarks.md). Display-only
 * fields (parsed authors, versions, licence, links, ISO dates) live only in `record`.
 */
export type PaperDocument = Pick<
  Paper,
  | "id"
  | "title"
  | "abstract"
  | "authors"
  | "submitter"
  | "comments"
  | "journalRef"
  | "doi"
  | "reportNo"
  | "categories"
  | "primaryCategory"
> & {
  pk: string;
  /** `First Last` per parsed author, so author names match as written and as parsed. */
  authorNames: string[];
  /** Archives of the categories (`astro-ph` for `astro-ph.CO`), for archive-level category filters. */
  categoryArchives: string[];
  /** Dates as epoch milliseconds: Meilisearch sorts and filters numbers, not date strings. */
  submittedTs: number;
  updatedTs: number;
  /** The API's paper record: its JSON, base64-encoded. */
  record: string;
};

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
    record: Buffer.from(JSON.stringify(paper)).toString("base64"),
  };
}

/** What searches retrieve of a paper document: its record. */
export const PAPER_HIT_FIELDS = ["record"];
export type PaperHit = Pick<PaperDocument, "record">;

/** The paper a search hit carries. */
export function fromPaperHit(hit: PaperHit): Paper {
  return JSON.parse(Buffer.from(hit.record, "base64").toString("utf8")) as Paper;
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** The papers of parsed hits as one JSON array. */
export function paperHitsJson(hits: readonly PaperHit[]): Buffer {
  return joinPapers(hits.map((hit) => Buffer.from(hit.record, "base64")));
}

function joinPapers(papers: Uint8Array[]): Buffer {
  const parts: Uint8Array[] = [OPEN];
  for (const [i, paper] of papers.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(paper);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const HIT_OPEN = Buffer.from('{"record":"');
const QUOTE = 0x22;
const HIT_CLOSE = 0x7d;
const LIST_OPEN = 0x5b;
const LIST_NEXT = 0x2c;
const LIST_CLOSE = 0x5d;

/**
 * Reads a hits array of records (`[{"record":"…"},…]`, as Meilisearch writes it when a search
 * retrieves only `record`) straight from an answer's bytes, starting at `from`: the papers as one
 * JSON array, and where the hits array ends (its `]`). Base64 holds no quote, so each record ends
 * at the next `"`. Undefined for any other layout: the caller then parses the answer whole.
 */
export function paperHitsAt(bytes: Buffer, from: number): { papers: Buffer; end: number } | undefined {
  if (bytes[from] !== LIST_OPEN) return undefined;
  const papers: Uint8Array[] = [];
  let at = from + 1;
  while (bytes[at] !== LIST_CLOSE) {
    if (papers.length > 0) {
      if (bytes[at] !== LIST_NEXT) return undefined;
      at += 1;
    }
    if (!bytes.subarray(at, at + HIT_OPEN.length).equals(HIT_OPEN)) return undefined;
    const start = at + HIT_OPEN.length;
    const end = bytes.indexOf(QUOTE, start);
    if (end === -1 || bytes[end + 1] !== HIT_CLOSE) return undefined;
    papers.push(Buffer.from(bytes.toString("latin1", start, end), "base64"));
    at = end + 2;
  }
  return { papers: joinPapers(papers), end: at };
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
