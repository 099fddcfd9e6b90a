import { type Static, Type as T } from "@sinclair/typebox";
import { type Paper, PaperSchema } from "../records/paper";

/** A page of papers, as both searches return it; the route validates with it and the search code is typed by it. */
export const PaginationSchema = T.Object({
  page: T.Integer({ description: "Zero-based page index." }),
  limit: T.Integer({ description: "Page size actually applied (after the plan's cap)." }),
  hasMore: T.Boolean({ description: "Exact: true only when the next page has at least one result." }),
  nextPage: T.Union([T.Integer(), T.Null()]),
});

export const PaperPageSchema = T.Object({ data: T.Array(PaperSchema), pagination: PaginationSchema });
export type PaperPage = Static<typeof PaperPageSchema>;
export type Pagination = Static<typeof PaginationSchema>;

/**
 * A page whose `data` is already the JSON of its papers, as UTF-8 bytes (Meilisearch's own), so the
 * API answers without decoding, parsing and re-serialising them. `pageJson` adds the route's other
 * top-level keys; `papersOf` parses the papers for callers that need them as objects (the tools).
 */
export interface PaperPageJson {
  data: Uint8Array;
  pagination: Pagination;
}

const DATA_KEY = Buffer.from('{"data":');
const NO_PAPERS = Buffer.from("[]");

export function papersJson(papers: readonly unknown[]): Uint8Array {
  return papers.length === 0 ? NO_PAPERS : Buffer.from(JSON.stringify(papers));
}

const decoder = new TextDecoder();
/**
 * The papers of each page's bytes, parsed once. A cached page hands out the same bytes on every
 * hit, so a tool call after the first reads its papers without parsing 20–40 KB of JSON again (the
 * largest part of an MCP search's CPU); the entry goes when the cache drops the page. Frozen,
 * since every caller of that page shares them.
 */
const parsedPages = new WeakMap<Uint8Array, Paper[]>();
/** The other way: the bytes a parsed list came from, for an answer that can send them as they are. */
const sourceBytes = new WeakMap<readonly Paper[], Uint8Array>();

/** The page's papers as objects: frozen (typed as the schema's mutable shape, which tools return). */
export function papersOf(page: PaperPageJson): Paper[] {
  let papers = parsedPages.get(page.data);
  if (!papers) {
    papers = deepFreeze(JSON.parse(decoder.decode(page.data)) as Paper[]);
    parsedPages.set(page.data, papers);
    sourceBytes.set(papers, page.data);
  }
  return papers;
}

/** The JSON bytes `papersOf` parsed these papers from, if it did (the same list, not a copy). */
export function jsonBytesOf(papers: readonly unknown[]): Uint8Array | undefined {
  return sourceBytes.get(papers as readonly Paper[]);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Whether the page holds no papers (`[]`, as Meilisearch writes an empty list). */
export function noPapers(page: PaperPageJson): boolean {
  return page.data.byteLength === 2;
}

export function pageJson(page: PaperPageJson, extra: Record<string, unknown> = {}): Uint8Array {
  let rest = `,"pagination":${JSON.stringify(page.pagination)}`;
  for (const [key, value] of Object.entries(extra)) rest += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return Buffer.concat([DATA_KEY, page.data, Buffer.from(`${rest}}`)]);
}
