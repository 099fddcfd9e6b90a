import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import { PaperFiltersSchema } from "../../shared/papers/filters";
import { PaginationSchema, type PaperPageJson, PaperPageSchema, pageJson } from "../../shared/papers/page";
import type { SortBy, SortOrder } from "../../shared/papers/search/advancedSearch";
import { getPaper, type PapersCtx, searchPapersFielded, searchPaperTitles } from "../../shared/papers/verbs";
import { PaperSchema } from "../../shared/records/paper";
import { jsonResponse } from "../plugins/largeBodies";
import { callerOf } from "../requestState";
import { API_KEY_SECURITY as SECURITY } from "./security";

const DateOnly = t.Optional(
  t.String({
    pattern: "^\\d{4}-\\d{2}-\\d{2}$",
    description: "A UTC day, `YYYY-MM-DD`, inclusive.",
  }),
);
const AdvancedBody = t.Object(
  {
    searchFilterString: PaperFiltersSchema,
    page: t.Optional(
      t.Integer({ minimum: 0, maximum: 1_000_000, description: "Zero-based page (alias: startIndex)." }),
    ),
    startIndex: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
    limit: t.Optional(
      t.Integer({ minimum: 1, maximum: 100, description: "Page size (alias: maxResults); capped by the plan." }),
    ),
    maxResults: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
    sortBy: t.Optional(
      t.String({ maxLength: 64, description: "relevance (default), submittedDate, lastUpdatedDate." }),
    ),
    sortOrder: t.Optional(
      t.String({ maxLength: 64, description: "ascending (default) or descending; asc, desc, dsc too." }),
    ),
    submittedFrom: DateOnly,
    submittedTo: DateOnly,
    updatedFrom: DateOnly,
    updatedTo: DateOnly,
    highlight: t.Optional(
      t.Boolean({ description: "Add `highlight` to each paper: matched fields with the matched words in <em>…</em>." }),
    ),
  },
  { additionalProperties: false },
);

const AdvancedPageSchema = t.Object({
  data: t.Array(
    t.Composite([
      PaperSchema,
      t.Object({
        highlight: t.Optional(t.Record(t.String(), t.String(), { description: "Only with highlight: true." })),
      }),
    ]),
  ),
  pagination: PaginationSchema,
  query: t.Object(
    {
      filters: t.Record(t.String(), t.String()),
      submittedFrom: t.Optional(t.String()),
      submittedTo: t.Optional(t.String()),
      updatedFrom: t.Optional(t.String()),
      updatedTo: t.Optional(t.String()),
      sortBy: t.Union([t.Literal("relevance"), t.Literal("submittedDate"), t.Literal("lastUpdatedDate")]),
      sortOrder: t.Union([t.Literal("ascending"), t.Literal("descending")]),
    },
    { description: "How the request was interpreted, after trimming and fallbacks." },
  ),
});

/** Two names for one field: either may be sent, but not two different values. */
function alias(first: number | undefined, second: number | undefined, names: [string, string]): number | undefined {
  if (first !== undefined && second !== undefined && first !== second) {
    const message = `${names[0]} and ${names[1]} are the same field; send one, or the same value`;
    throw new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
      details: [{ in: "body", path: `/${names[1]}`, message }],
    });
  }
  return first ?? second;
}

/**
 * Search pages go out as prebuilt JSON: the papers are Meilisearch's own bytes (see PaperPageJson),
 * so they are neither parsed nor serialised again (and a page larger than a few KB leaves as a
 * stream: see largeBodies.ts). Elysia does not re-check a Response against the route's response
 * schema, which stays as documentation; the papers are stored only from validated records
 * (`toPaper`) and retrieved with exactly the record's fields, which the search tests compare
 * against the source records.
 */
function pageResponse(page: PaperPageJson, extra?: Record<string, unknown>): Response {
  return jsonResponse(pageJson(page, extra));
}

const SORT_ORDERS: Record<string, SortOrder> = {
  ascending: "ascending",
  asc: "ascending",
  descending: "descending",
  desc: "descending",
  dsc: "descending",
};

type PaperDeps = Pick<Deps, "sql" | "meili" | "plans" | "env">;

/** The paper verbs' context for this request's caller (the plan caps the page size). */
function papersCtx(deps: PaperDeps, request: Request): PapersCtx {
  const { principal } = callerOf(request);
  return {
    sql: deps.sql,
    meili: deps.meili,
    indexPrefix: deps.env.MEILI_INDEX_PREFIX,
    maxPageSize: deps.plans[principal.plan].maxPageSize,
  };
}

export function paperRoutes(deps: PaperDeps) {
  return new Elysia({ name: "routes/papers" })
    .get(
      "/api/v1/papers/search",
      async ({ request, query }) => {
        const page = await searchPaperTitles(papersCtx(deps, request), query);
        return pageResponse(page);
      },
      {
        query: t.Object({
          q: t.String({ minLength: 1, maxLength: 300, description: "Words to find in titles." }),
          page: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Capped by the plan." })),
        }),
        response: PaperPageSchema,
        detail: {
          tags: ["Papers"],
          summary: "Search paper titles",
          description:
            "Every query word must match a whole word of the title (case and diacritics folded, no typos or prefixes); quoted words must appear together.",
          security: SECURITY,
        },
      },
    )
    .post(
      "/api/v1/papers/search",
      async ({ request, body }) => {
        // Invalid sort values fall back instead of failing (spec rule 2); `query` shows what applied.
        const sortBy: SortBy =
          body.sortBy === "submittedDate" || body.sortBy === "lastUpdatedDate" ? body.sortBy : "relevance";
        const sortOrder = SORT_ORDERS[(body.sortOrder ?? "").toLowerCase()] ?? "ascending";
        const { searchFilterString, page, startIndex, limit, maxResults, highlight, ...dates } = body;
        const result = await searchPapersFielded(papersCtx(deps, request), {
          ...dates,
          filters: searchFilterString,
          filtersPath: "/searchFilterString",
          page: alias(page, startIndex, ["page", "startIndex"]),
          limit: alias(limit, maxResults, ["limit", "maxResults"]),
          sortBy,
          sortOrder,
          highlight,
        });
        return pageResponse(result.page, { query: result.query });
      },
      {
        body: AdvancedBody,
        response: AdvancedPageSchema,
        detail: {
          tags: ["Papers"],
          summary: "Fielded paper search",
          description:
            "Filters are ANDed. Text filters match whole words (see the README); `au` takes a comma-separated list of names, all required; `cat` matches a category exactly or every category of an archive; `id` matches the paper id with or without version.",
          security: SECURITY,
        },
      },
    )
    .get(
      "/api/v1/papers/*",
      async ({ params }) => {
        const paper = await getPaper(deps, decodedPaperId(params["*"]));
        return paper;
      },
      {
        response: PaperSchema,
        detail: {
          tags: ["Papers"],
          summary: "One paper by arXiv id, with or without version (`0704.0001`, `hep-th/9901001v2`)",
          security: SECURITY,
        },
      },
    );
}

/** The wildcard arrives percent-encoded; a malformed escape (`%zz`) is the caller's mistake, not a 500. */
function decodedPaperId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
      details: [{ in: "params", path: "/*", message: "Not a valid percent-encoded paper id." }],
    });
  }
}
