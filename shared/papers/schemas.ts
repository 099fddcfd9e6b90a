import { type SchemaOptions, type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";

/**
 * Paper search inputs and the query echo, for the REST routes (api/routes/papers.ts) and the MCP
 * tools (shared/tools/papers.ts) alike. Where the two surfaces differ, the difference is a named
 * variant here, so neither drifts from the other by accident.
 */

/**
 * Paging bounds. REST's query strings build their integers from these with Elysia's `t.Integer`,
 * which reads the number's text (a query string is text); JSON bodies and MCP use TypeBox
 * integers, which take JSON numbers only.
 */
export const PAGE_BOUNDS = { minimum: 0, maximum: 1_000_000 } as const;
export const LIMIT_BOUNDS = { minimum: 1, maximum: 100 } as const;
export const DEFAULT_LIMIT = 20;

export const PageSchema = T.Integer({ ...PAGE_BOUNDS, description: "Zero-based page." });
export const LimitSchema = T.Integer({ ...LIMIT_BOUNDS, description: "Page size; capped by the plan (default 20)." });

/** A UTC day, as the date-range inputs take it; `checkDates` then rejects days that do not exist. */
export const daySchema = (description: string) => T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description });

const FilterText = T.Optional(Text({ maxLength: 500 }));

/** The fielded-search filters (spec 4.6): REST's `searchFilterString`, the MCP tool's `filters`. */
export const PaperFiltersSchema = T.Object(
  {
    all: FilterText,
    id: FilterText,
    ti: FilterText,
    au: FilterText,
    abs: FilterText,
    cat: FilterText,
    jr: FilterText,
    co: FilterText,
    rn: FilterText,
  },
  { additionalProperties: false, description: "Filters, ANDed; at least one must be non-empty." },
);

export const sortBySchema = (options?: SchemaOptions) =>
  T.Union([T.Literal("relevance"), T.Literal("submittedDate"), T.Literal("lastUpdatedDate")], options);
export const sortOrderSchema = (options?: SchemaOptions) =>
  T.Union([T.Literal("ascending"), T.Literal("descending")], options);
export type SortBy = Static<ReturnType<typeof sortBySchema>>;
export type SortOrder = Static<ReturnType<typeof sortOrderSchema>>;

const EchoFilters = T.Record(T.String(), T.String());
const EchoDates = {
  submittedFrom: T.Optional(T.String()),
  submittedTo: T.Optional(T.String()),
  updatedFrom: T.Optional(T.String()),
  updatedTo: T.Optional(T.String()),
};

/** How a fielded search was interpreted (trimmed filters, checked days, the sort that applied). */
export const FieldedQuerySchema = T.Object(
  { filters: EchoFilters, ...EchoDates, sortBy: sortBySchema(), sortOrder: sortOrderSchema() },
  { description: "How the request was interpreted, after trimming and fallbacks." },
);
export type FieldedQuery = Static<typeof FieldedQuerySchema>;

/**
 * The same echo as the MCP tool has always published it: `sortBy` and `sortOrder` as plain strings.
 * Looser than what the verb returns (always one of the literals), so every answer still validates.
 */
export const FieldedQueryLooseSchema = T.Object({
  filters: EchoFilters,
  sortBy: T.String(),
  sortOrder: T.String(),
  ...EchoDates,
});
