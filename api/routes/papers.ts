import { Elysia, t } from "elysia";
import {
  type DateRanges,
  FILTER_KEYS,
  type Filters,
  type SortBy,
  type SortOrder,
  searchAdvanced,
} from "../../search-index/advancedSearch";
import { searchTitles } from "../../search-index/searchPapers";
import { findPaperById } from "../../shared/db/repositories/papers";
import type { Deps } from "../../shared/deps";
import { AppError } from "../../shared/errors";
import { isArxivId } from "../../shared/papers/ids";
import { PaginationSchema, type PaperPageJson, PaperPageSchema, pageJson } from "../../shared/papers/page";
import { baseArxivId, PaperSchema } from "../../shared/papers/record";
import { unavailable } from "../../shared/services/unavailable";
import { callerOf } from "../requestState";

const SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

const FilterText = t.Optional(t.String({ maxLength: 500 }));
const DateOnly = t.Optional(
  t.String({
    pattern: "^\\d{4}-\\d{2}-\\d{2}$",
    description: "A UTC day, `YYYY-MM-DD`, inclusive.",
  }),
);
const AdvancedBody = t.Object(
  {
    searchFilterString: t.Object(
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
    ),
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

function invalid(path: string, message: string): AppError {
  return new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
    details: [{ in: "body", path, message }],
  });
}

/** Two names for one field: either may be sent, but not two different values. */
function alias(first: number | undefined, second: number | undefined, names: [string, string]): number | undefined {
  if (first !== undefined && second !== undefined && first !== second) {
    throw invalid(`/${names[1]}`, `${names[0]} and ${names[1]} are the same field; send one, or the same value`);
  }
  return first ?? second;
}

/** Real calendar days, and `from` not after `to`; equal bounds select that one day. */
function checkDates(body: DateRanges): DateRanges {
  const dates: DateRanges = {};
  for (const key of ["submittedFrom", "submittedTo", "updatedFrom", "updatedTo"] as const) {
    const value = body[key];
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
    if (dates[from] && dates[to] && (dates[from] as string) > (dates[to] as string)) {
      throw invalid(`/${from}`, `${from} is after ${to}`);
    }
  }
  return dates;
}

/**
 * Search pages go out as prebuilt JSON: the papers are Meilisearch's own bytes (see PaperPageJson),
 * so they are neither parsed nor serialised again. Elysia does not re-check a Response against the
 * route's response schema, which stays as documentation; the papers are stored only from validated
 * records (`toPaper`) and retrieved with exactly the record's fields, which the search tests compare
 * against the source records.
 */
function pageResponse(page: PaperPageJson, extra?: Record<string, unknown>): Response {
  return new Response(pageJson(page, extra), { headers: { "Content-Type": "application/json;charset=utf-8" } });
}

const SORT_ORDERS: Record<string, SortOrder> = {
  ascending: "ascending",
  asc: "ascending",
  descending: "descending",
  desc: "descending",
  dsc: "descending",
};

export function paperRoutes(deps: Pick<Deps, "sql" | "meili" | "plans" | "env">) {
  return new Elysia({ name: "routes/papers" })
    .get(
      "/api/v1/papers/search",
      async ({ request, query }) => {
        const q = query.q.trim();
        if (!q) {
          throw new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
            details: [{ in: "query", path: "/q", message: "Expected a nonblank search text" }],
          });
        }
        const { principal } = callerOf(request);
        const limit = Math.min(query.limit ?? 20, deps.plans[principal.plan].maxPageSize);
        const page = await searchTitles(deps.meili, deps.env.MEILI_INDEX_PREFIX, {
          q,
          page: query.page ?? 0,
          limit,
        }).catch(unavailable("Meilisearch"));
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
        const filters = Object.fromEntries(
          Object.entries(body.searchFilterString)
            .map(([key, value]) => [key, (value ?? "").trim()])
            .filter(([, value]) => value !== ""),
        ) as Filters;
        if (Object.keys(filters).length === 0) {
          throw invalid("/searchFilterString", `Give at least one non-empty filter: ${FILTER_KEYS.join(", ")}`);
        }
        const dates = checkDates(body);
        const { principal } = callerOf(request);
        const page = alias(body.page, body.startIndex, ["page", "startIndex"]) ?? 0;
        const requested = alias(body.limit, body.maxResults, ["limit", "maxResults"]) ?? 20;
        const limit = Math.min(requested, deps.plans[principal.plan].maxPageSize);
        // Invalid sort values fall back instead of failing (spec rule 2); `query` shows what applied.
        const sortBy: SortBy =
          body.sortBy === "submittedDate" || body.sortBy === "lastUpdatedDate" ? body.sortBy : "relevance";
        const sortOrder = SORT_ORDERS[(body.sortOrder ?? "").toLowerCase()] ?? "ascending";
        const result = await searchAdvanced(deps.meili, deps.env.MEILI_INDEX_PREFIX, {
          filters,
          dates,
          highlight: body.highlight === true,
          page,
          limit,
          sortBy,
          sortOrder,
        }).catch(unavailable("Meilisearch"));
        return pageResponse(result, { query: { filters, ...dates, sortBy, sortOrder } });
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
        const id = decodeURIComponent(params["*"]);
        const paper = isArxivId(id)
          ? await findPaperById(deps.sql, baseArxivId(id)).catch(unavailable("PostgreSQL"))
          : undefined;
        if (!paper) throw new AppError("NOT_FOUND", `No paper with id ${id}.`);
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
