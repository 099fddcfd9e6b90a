import { Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { getPapers, paperCategories, paperFacets, searchPapersFielded, searchPaperTitles } from "../papers/catalog";
import { PaginationSchema, type PaperPageJson, PaperPageSchema, papersOf } from "../papers/page";
import {
  daySchema,
  FieldedQueryLooseSchema,
  LimitSchema,
  PageSchema,
  PaperFiltersSchema,
  sortBySchema,
  sortOrderSchema,
} from "../papers/schemas";
import { FILTER_KEYS } from "../papers/search/advancedSearch";
import { type Paper, PaperSchema } from "../records/paper";
import { READ_ONLY } from "./annotations";
import { defineTool } from "./types";

/** Paper tools over the same verbs as /api/v1/papers, with the paging and echo schemas of shared/papers/schemas.ts. */
const Day = (what: string) => daySchema(`${what}, YYYY-MM-DD (UTC).`);
const Category = Text({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z.-]+$",
  description: "An arXiv category (`cs.LG`) or a whole archive (`astro-ph`).",
});

const parsed = (page: PaperPageJson) => ({ data: papersOf(page), pagination: page.pagination });
/** Rendered once per list of papers: a cached page's papers are the same array on every hit (page.ts). */
const renderedTitles = new WeakMap<readonly Paper[], string>();
function titles(papers: readonly Paper[]): string {
  let text = renderedTitles.get(papers);
  if (text === undefined) {
    text =
      papers.map((p) => `${p.id}: ${p.title} (${p.submittedDate.slice(0, 10)}, ${p.links.abs})`).join("\n") ||
      "No papers matched.";
    renderedTitles.set(papers, text);
  }
  return text;
}

export const searchPapersByTitleTool = defineTool({
  name: "search_papers_by_title",
  title: "Search paper titles",
  description:
    "Finds arXiv papers whose title contains every word of q (whole words, case and accents folded, no typos or prefixes); put words in double quotes to require them together. Pages with page/limit.",
  input: T.Object(
    {
      q: Text({ minLength: 1, maxLength: 300, pattern: "\\S", description: "Words to find in titles." }),
      page: T.Optional(PageSchema),
      limit: T.Optional(LimitSchema),
    },
    { additionalProperties: false },
  ),
  output: PaperPageSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  run: async (ctx, input) => parsed(await searchPaperTitles(ctx, input)),
  render: (page) => titles(page.data),
});

export const searchPapersAdvancedTool = defineTool({
  name: "search_papers_advanced",
  title: "Fielded paper search",
  description: `Searches papers by fields, ANDed: all (any field), ti (title), au (authors; comma-separated names, all required), abs (abstract), cat (category or archive), jr (journal ref), co (comments), rn (report number), id (arXiv id). Text filters match whole words. Optional submission/update day ranges and a sort by date. At least one of ${FILTER_KEYS.join(", ")} must be non-empty.`,
  input: T.Object(
    {
      filters: PaperFiltersSchema,
      page: T.Optional(PageSchema),
      limit: T.Optional(LimitSchema),
      sortBy: T.Optional(sortBySchema()),
      sortOrder: T.Optional(sortOrderSchema({ description: "Default ascending, as on REST." })),
      submittedFrom: T.Optional(Day("First submission day")),
      submittedTo: T.Optional(Day("Last submission day")),
      updatedFrom: T.Optional(Day("First update day")),
      updatedTo: T.Optional(Day("Last update day")),
    },
    { additionalProperties: false },
  ),
  output: T.Object({
    data: T.Array(PaperSchema),
    pagination: PaginationSchema,
    query: FieldedQueryLooseSchema,
  }),
  annotations: READ_ONLY,
  scope: "papers:read",
  run: async (ctx, input) => {
    const result = await searchPapersFielded(ctx, input);
    return { ...parsed(result.page), query: result.query };
  },
  render: (page) => titles(page.data),
});

export const getPapersTool = defineTool({
  name: "get_papers",
  title: "Papers by arXiv id",
  description:
    "The full records (title, abstract, authors, categories, versions, dates, links) of 1 to 20 papers by arXiv id, with or without version (`0704.0001`, `hep-th/9901001v2`), in the order asked; ids we do not hold are listed in missing. For one paper, pass one id.",
  input: T.Object(
    {
      ids: T.Array(Text({ minLength: 1, maxLength: 64, description: "An arXiv id, with or without version." }), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
      }),
    },
    { additionalProperties: false },
  ),
  output: T.Object({ data: T.Array(PaperSchema), missing: T.Array(T.String()) }),
  annotations: READ_ONLY,
  scope: "papers:read",
  run: (ctx, input) => getPapers(ctx, input),
  render: (r) => `${titles(r.data)}${r.missing.length ? `\nNot found: ${r.missing.join(", ")}` : ""}`,
});

export const recentPapersTool = defineTool({
  name: "recent_papers",
  title: "Newest papers in a category",
  description:
    "The most recently submitted papers of an arXiv category or archive, newest first, optionally narrowed by words (any field). Filtering happens on the server, so a page is never silently empty when matches exist.",
  input: T.Object(
    {
      category: Category,
      q: T.Optional(Text({ maxLength: 300, description: "Optional words every paper must contain." })),
      submittedFrom: T.Optional(Day("Oldest submission day")),
      page: T.Optional(PageSchema),
      limit: T.Optional(LimitSchema),
    },
    { additionalProperties: false },
  ),
  output: PaperPageSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  run: async (ctx, input) => {
    const result = await searchPapersFielded(ctx, {
      filters: { cat: input.category, all: input.q },
      submittedFrom: input.submittedFrom,
      page: input.page,
      limit: input.limit,
      sortBy: "submittedDate",
      sortOrder: "descending",
    });
    return parsed(result.page);
  },
  render: (page) => titles(page.data),
});

export const listPaperCategoriesTool = defineTool({
  name: "list_paper_categories",
  title: "Paper archives and categories",
  description:
    "Without archive: the arXiv archives in our index (`cs`, `astro-ph`, `hep-th`, …) with paper counts. With archive: its categories (`cs.LG`, …) with counts. Most frequent first; use them with recent_papers or the cat filter.",
  input: T.Object(
    {
      archive: T.Optional(
        Text({ minLength: 1, maxLength: 32, pattern: "^[A-Za-z-]+$", description: "An archive, e.g. `cs`." }),
      ),
    },
    { additionalProperties: false },
  ),
  output: T.Object({
    archive: T.Union([T.String(), T.Null()]),
    totalPapers: T.Integer(),
    categories: T.Array(T.Object({ category: T.String(), count: T.Integer() })),
  }),
  annotations: READ_ONLY,
  scope: "papers:read",
  run: (ctx, input) => paperCategories(ctx, input),
  render: (r) => `${r.totalPapers} papers. ${r.categories.map((c) => `${c.category} ${c.count}`).join(", ")}`,
});

const Counts = T.Record(T.String(), T.Integer());

export const paperFacetsTool = defineTool({
  name: "paper_facets",
  title: "Category counts for a query",
  description:
    "How the papers matching q (every word, any field) spread over archives, categories and primary categories, with the submission-date range of the matches; optionally within one category. No per-year counts.",
  input: T.Object(
    {
      q: Text({ minLength: 1, maxLength: 300, pattern: "\\S" }),
      category: T.Optional(Category),
    },
    { additionalProperties: false },
  ),
  output: T.Object({
    query: T.String(),
    totalHits: T.Integer(),
    categories: Counts,
    primaryCategories: Counts,
    archives: Counts,
    truncated: T.Boolean({ description: "True when a list may be cut at 100 values (alphabetical)." }),
    submitted: T.Union([T.Object({ from: T.String(), to: T.String() }), T.Null()]),
  }),
  annotations: READ_ONLY,
  scope: "papers:read",
  run: (ctx, input) => paperFacets(ctx, input),
  render: (f) =>
    `${f.totalHits} papers match "${f.query}". Categories: ${
      Object.entries(f.categories)
        .slice(0, 15)
        .map(([c, n]) => `${c} ${n}`)
        .join(", ") || "none"
    }.`,
});
