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

export function papersOf(page: PaperPageJson): Paper[] {
  return JSON.parse(decoder.decode(page.data)) as Paper[];
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
