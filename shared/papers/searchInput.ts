import type { Ctx } from "../context/ctx";
import { AppError, invalidRequest } from "../core/errors";
import { DEFAULT_LIMIT, type FieldedQuery, type SortBy, type SortOrder } from "./schemas";
import { type AdvancedQuery, type DateRanges, FILTER_KEYS, type Filters } from "./search/advancedSearch";

/**
 * Turns what a caller sent (REST body or query, MCP tool input) into what a search runs with:
 * defaults, aliases, sort fallbacks, the plan's page cap, trimmed filters and checked days.
 */

export interface Paging {
  page?: number;
  limit?: number;
}

/** The page and page size a search runs with: the defaults, then the caller's plan cap. */
export function paging(ctx: Pick<Ctx, "plans" | "plan">, input: Paging): { page: number; limit: number } {
  return { page: input.page ?? 0, limit: Math.min(input.limit ?? DEFAULT_LIMIT, ctx.plans[ctx.plan].maxPageSize) };
}

export interface FieldedInput extends DateRanges, Paging {
  filters: Filters;
  /** REST's aliases of `page` and `limit`: either name, or both with one value. */
  startIndex?: number;
  maxResults?: number;
  /** Unknown values fall back to relevance and ascending instead of failing (REST spec rule 2). */
  sortBy?: string;
  sortOrder?: string;
  highlight?: boolean;
  /** Where the filters sit in the caller's request, for error details (REST: /searchFilterString). */
  filtersPath?: string;
}

/** A fielded search as it runs, and the echo of it that answers carry as `query`. */
export function fieldedQuery(
  ctx: Pick<Ctx, "plans" | "plan">,
  input: FieldedInput,
): { search: AdvancedQuery; echo: FieldedQuery } {
  // Aliases first: a conflict between them is reported before any other mistake, as REST always has.
  const window = paging(ctx, {
    page: alias(input.page, input.startIndex, ["page", "startIndex"]),
    limit: alias(input.limit, input.maxResults, ["limit", "maxResults"]),
  });
  const filters = trimmedFilters(input.filters, input.filtersPath ?? "/filters");
  const dates = checkDates(input);
  const sortBy = sortByOf(input.sortBy);
  const sortOrder = sortOrderOf(input.sortOrder);
  return {
    search: { filters, dates, highlight: input.highlight === true, ...window, sortBy, sortOrder },
    echo: { filters, ...dates, sortBy, sortOrder },
  };
}

function invalid(path: string, message: string, where: "body" | "query" = "body"): AppError {
  return new AppError("VALIDATION_FAILED", `${path}: ${message}`, { details: [{ in: where, path, message }] });
}

/** Title search text: trimmed, and not blank. */
export function titleText(q: string): string {
  const text = q.trim();
  if (!text) throw invalid("/q", "Expected a nonblank search text", "query");
  return text;
}

/** Blank filters are dropped; at least one must be left. */
function trimmedFilters(given: Filters, path: string): Record<string, string> {
  const filters = Object.fromEntries(
    Object.entries(given)
      .map(([key, value]) => [key, (value ?? "").trim()])
      .filter(([, value]) => value !== ""),
  );
  if (Object.keys(filters).length === 0) {
    throw invalid(path, `Give at least one non-empty filter: ${FILTER_KEYS.join(", ")}`);
  }
  return filters;
}

/** Two names for one field: either may be sent, but not two different values. */
function alias(first: number | undefined, second: number | undefined, names: [string, string]): number | undefined {
  if (first !== undefined && second !== undefined && first !== second) {
    const message = `${names[0]} and ${names[1]} are the same field; send one, or the same value`;
    throw invalidRequest([{ in: "body", path: `/${names[1]}`, message }]);
  }
  return first ?? second;
}

function sortByOf(value: string | undefined): SortBy {
  return value === "submittedDate" || value === "lastUpdatedDate" ? value : "relevance";
}

const SORT_ORDERS = new Map<string, SortOrder>([
  ["ascending", "ascending"],
  ["asc", "ascending"],
  ["descending", "descending"],
  ["desc", "descending"],
  ["dsc", "descending"],
]);

function sortOrderOf(value: string | undefined): SortOrder {
  return SORT_ORDERS.get((value ?? "").toLowerCase()) ?? "ascending";
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
