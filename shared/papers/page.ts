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
