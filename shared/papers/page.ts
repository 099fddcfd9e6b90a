import { type Static, Type as T } from "@sinclair/typebox";
import { PaperSchema } from "./record";

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
 * A page whose `data` is already the JSON text of its papers (Meilisearch's own bytes), so the API
 * answers without parsing and re-serialising them. `pageJson` adds the route's other top-level keys.
 */
export interface PaperPageJson {
  data: string;
  pagination: Pagination;
}

export function pageJson(page: PaperPageJson, extra: Record<string, unknown> = {}): string {
  let json = `{"data":${page.data},"pagination":${JSON.stringify(page.pagination)}`;
  for (const [key, value] of Object.entries(extra)) json += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return `${json}}`;
}
