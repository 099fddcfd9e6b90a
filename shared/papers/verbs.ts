import type { Meilisearch } from "../../search-index/client";
import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import type { Sql } from "../db/sql";
import { baseArxivId, type Paper } from "../records/paper";
import { isArxivId } from "./ids";
import type { PaperPageJson } from "./page";
import { findPaperById } from "./repository";
import {
  type DateRanges,
  FILTER_KEYS,
  type Filters,
  type SortBy,
  type SortOrder,
  searchAdvanced,
} from "./search/advancedSearch";
import { type PaperFacets, searchPaperFacets } from "./search/facets";
import { searchTitles } from "./search/titleSearch";

/**
 * Paper verbs of the REST routes (api/routes/papers.ts) and the MCP tools alike: nonblank text, the
 * plan's page cap, at least one filter, real calendar days with from ≤ to.
 */
export interface PapersCtx {
  sql: Sql;
  meili: Meilisearch;
  indexPrefix: string;
  /** The caller's plan cap on `limit`. */
  maxPageSize: number;
}

const search = <T>(work: Promise<T>) => work.catch(unavailable("Meilisearch"));

function invalid(path: string, message: string, where: "body" | "query" = "body"): AppError {
  return new AppError("VALIDATION_FAILED", `${path}: ${message}`, { details: [{ in: where, path, message }] });
}

/** Title search (GET /api/v1/papers/search and the title tool). */
export function searchPaperTitles(ctx: PapersCtx, input: { q: string; page?: number; limit?: number }) {
  const q = input.q.trim();
  if (!q) throw invalid("/q", "Expected a nonblank search text", "query");
  const limit = Math.min(input.limit ?? 20, ctx.maxPageSize);
  return search(searchTitles(ctx.meili, ctx.indexPrefix, { q, page: input.page ?? 0, limit }));
}

export interface FieldedInput extends DateRanges {
  filters: Filters;
  page?: number;
  limit?: number;
  /** Default relevance; the order defaults to ascending, as REST's spec rule 2 says. */
  sortBy?: SortBy;
  sortOrder?: SortOrder;
  highlight?: boolean;
  /** Where the filters sit in the caller's request, for error details (REST: /searchFilterString). */
  filtersPath?: string;
}

export interface FieldedResult {
  page: PaperPageJson;
  query: { filters: Filters; sortBy: SortBy; sortOrder: SortOrder } & DateRanges;
}

export async function searchPapersFielded(ctx: PapersCtx, input: FieldedInput): Promise<FieldedResult> {
  const filters = Object.fromEntries(
    Object.entries(input.filters)
      .map(([key, value]) => [key, (value ?? "").trim()])
      .filter(([, value]) => value !== ""),
  ) as Filters;
  if (Object.keys(filters).length === 0) {
    throw invalid(input.filtersPath ?? "/filters", `Give at least one non-empty filter: ${FILTER_KEYS.join(", ")}`);
  }
  const dates = checkDates(input);
  const sortBy = input.sortBy ?? "relevance";
  const sortOrder = input.sortOrder ?? "ascending";
  const page = await search(
    searchAdvanced(ctx.meili, ctx.indexPrefix, {
      filters,
      dates,
      highlight: input.highlight === true,
      page: input.page ?? 0,
      limit: Math.min(input.limit ?? 20, ctx.maxPageSize),
      sortBy,
      sortOrder,
    }),
  );
  return { page, query: { filters, ...dates, sortBy, sortOrder } };
}

/** Real calendar days, and `from` not after `to`; equal bounds select that one day. */
function checkDates(input: DateRanges): DateRanges {
  const dates: DateRanges = {};
  for (const key of ["submittedFrom", "submittedTo", "updatedFrom", "updatedTo"] as const) {
    const value = input[key];
    if (value === undefined) continue;
    const time = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
      throw invalid(`/${key}`, "Expected a real calendar day, YYYY-MM-DD");
    }
    dates[key] = value;
  }
  for (const [from, to] of [
    ["submittedFrom", "submittedTo"],
    ["updatedFrom", "updatedTo"],
  ] as const) {
    const start = dates[from];
    const end = dates[to];
    if (start && end && start > end) throw invalid(`/${from}`, `${from} is after ${to}`);
  }
  return dates;
}

/** One paper by arXiv id, with or without version; NOT_FOUND otherwise (as GET /api/v1/papers/{id}). */
export async function getPaper(ctx: Pick<PapersCtx, "sql">, id: string): Promise<Paper> {
  const paper = isArxivId(id)
    ? await findPaperById(ctx.sql, baseArxivId(id)).catch(unavailable("PostgreSQL"))
    : undefined;
  if (!paper) throw new AppError("NOT_FOUND", `No paper with id ${id}.`);
  return paper;
}

/** Several papers by id, in the order asked; ids we do not hold are listed as missing, not an error. */
export async function getPapers(ctx: Pick<PapersCtx, "sql">, ids: readonly string[]) {
  const found = await Promise.all(
    ids.map((id) =>
      isArxivId(id) ? findPaperById(ctx.sql, baseArxivId(id)).catch(unavailable("PostgreSQL")) : undefined,
    ),
  );
  return {
    data: found.filter((paper): paper is Paper => paper !== undefined),
    missing: ids.filter((_, index) => found[index] === undefined),
  };
}

/** Category counts and the submission-date range of a query's matches (all fields, every word). */
export async function paperFacets(ctx: PapersCtx, input: { q: string; category?: string }) {
  const q = input.q.trim();
  const filter = input.category
    ? `(categories = ${JSON.stringify(input.category)} OR categoryArchives = ${JSON.stringify(input.category)})`
    : undefined;
  const facets = await search(searchPaperFacets(ctx.meili, ctx.indexPrefix, { q, filter }));
  return { query: q, ...facets, submitted: dateRange(facets) };
}

/**
 * Without an archive: the archives of the whole index with their paper counts (a complete list).
 * With one: the categories of its papers with counts (complete too: an archive has far fewer than
 * Meilisearch's 100 facet values). Most frequent first.
 */
export async function paperCategories(ctx: PapersCtx, input: { archive?: string }) {
  const filter = input.archive ? `categoryArchives = ${JSON.stringify(input.archive)}` : undefined;
  const facets = await search(searchPaperFacets(ctx.meili, ctx.indexPrefix, { q: "", filter }));
  const counts = input.archive
    ? Object.fromEntries(Object.entries(facets.categories).filter(([name]) => name.split(".")[0] === input.archive))
    : facets.archives;
  return {
    archive: input.archive ?? null,
    totalPapers: facets.totalHits,
    categories: Object.entries(counts)
      .map(([category, count]) => ({ category, count }))
      .sort((a, b) => b.count - a.count || a.category.localeCompare(b.category)),
  };
}

function dateRange(facets: PaperFacets): { from: string; to: string } | null {
  if (!facets.submitted) return null;
  return {
    from: new Date(facets.submitted.min).toISOString(),
    to: new Date(facets.submitted.max).toISOString(),
  };
}
