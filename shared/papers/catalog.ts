import type { Served } from "../../search-index/answerCache";
import { indexUid } from "../../search-index/indexes";
import type { Ctx, SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import { baseArxivId, type Paper } from "../records/paper";
import { isArxivId } from "./ids";
import type { PaperPageJson } from "./page";
import { findPaperById } from "./repository";
import type { FieldedQuery } from "./schemas";
import { searchAdvanced } from "./search/advancedSearch";
import { type PaperFacets, searchPaperFacets } from "./search/facets";
import { searchTitles } from "./search/titleSearch";
import { type FieldedInput, fieldedQuery, type Paging, paging, titleText } from "./searchInput";

/**
 * Paper verbs of the REST routes (api/routes/papers.ts) and the MCP tools alike. Searches read the
 * index prefix from the environment and, when they page, the caller's plan cap (searchInput.ts).
 */
const search = <T>(work: Promise<T>) => work.catch(unavailable("Meilisearch"));

type SearchCtx = Pick<Ctx, "meili" | "env" | "plans" | "plan" | "searchCache">;

/**
 * A page from the process's answer cache (search-index/answerCache.ts), keyed by the search as it
 * runs: normalised text and filters, and the page window after the plan's cap.
 */
function cachedPage(ctx: SearchCtx, query: string, run: () => Promise<PaperPageJson>): Promise<Served<PaperPageJson>> {
  const uid = indexUid(ctx.env.MEILI_INDEX_PREFIX, "papers");
  return ctx.searchCache.answer(uid, query, () => search(run()), pageBytes, ownBytes);
}

const pageBytes = (page: PaperPageJson) => page.data.byteLength + 128;
/** A page's papers are a view of Meilisearch's whole answer: the cache keeps a copy of just them. */
const ownBytes = (page: PaperPageJson): PaperPageJson => ({
  data: new Uint8Array(page.data),
  pagination: page.pagination,
});

/** Title search (GET /api/v1/papers/search and the title tool). */
export function searchPaperTitles(ctx: SearchCtx, input: { q: string } & Paging): Promise<Served<PaperPageJson>> {
  const q = titleText(input.q);
  const window = paging(ctx, input);
  return cachedPage(ctx, JSON.stringify(["title", q, window.page, window.limit]), () =>
    searchTitles(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, { q, ...window }),
  );
}

export interface FieldedResult {
  page: Served<PaperPageJson>;
  query: FieldedQuery;
}

/** Fielded search (POST /api/v1/papers/search and the fielded, recent and literature tools). */
export async function searchPapersFielded(ctx: SearchCtx, input: FieldedInput): Promise<FieldedResult> {
  const { search: query, echo } = fieldedQuery(ctx, input);
  // Filters in a fixed order, so the same search written two ways is one entry.
  const filters = Object.entries(query.filters).sort(([a], [b]) => a.localeCompare(b));
  const key = JSON.stringify(["fielded", filters, { ...query, filters: undefined }]);
  const page = await cachedPage(ctx, key, () => searchAdvanced(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, query));
  return { page, query: echo };
}

/** One paper by arXiv id, with or without version; NOT_FOUND otherwise (as GET /api/v1/papers/{id}). */
export async function getPaper(ctx: Pick<SystemCtx, "sql">, input: { id: string }): Promise<Paper> {
  const [paper] = await findPapers(ctx, [input.id]);
  if (!paper) throw new AppError("NOT_FOUND", `No paper with id ${input.id}.`);
  return paper;
}

/** Several papers by id, in the order asked; ids we do not hold are listed as missing, not an error. */
export async function getPapers(ctx: Pick<SystemCtx, "sql">, input: { ids: readonly string[] }) {
  const found = await findPapers(ctx, input.ids);
  return {
    data: found.filter((paper): paper is Paper => paper !== undefined),
    missing: input.ids.filter((_, index) => found[index] === undefined),
  };
}

/** Each id's paper, or undefined for an id we do not hold or that is not an arXiv id. */
function findPapers(ctx: Pick<SystemCtx, "sql">, ids: readonly string[]): Promise<(Paper | undefined)[]> {
  return Promise.all(
    ids.map((id) =>
      isArxivId(id) ? findPaperById(ctx.sql, baseArxivId(id)).catch(unavailable("PostgreSQL")) : undefined,
    ),
  );
}

/** Category counts and the submission-date range of a query's matches (all fields, every word). */
export async function paperFacets(ctx: Pick<SystemCtx, "meili" | "env">, input: { q: string; category?: string }) {
  const q = input.q.trim();
  const filter = input.category
    ? `(categories = ${JSON.stringify(input.category)} OR categoryArchives = ${JSON.stringify(input.category)})`
    : undefined;
  const facets = await search(searchPaperFacets(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, { q, filter }));
  return { query: q, ...facets, submitted: dateRange(facets) };
}

/**
 * Without an archive: the archives of the whole index with their paper counts (a complete list).
 * With one: the categories of its papers with counts (complete too: an archive has far fewer than
 * Meilisearch's 100 facet values). Most frequent first.
 */
export async function paperCategories(ctx: Pick<SystemCtx, "meili" | "env">, input: { archive?: string }) {
  const filter = input.archive ? `categoryArchives = ${JSON.stringify(input.archive)}` : undefined;
  const facets = await search(searchPaperFacets(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, { q: "", filter }));
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
