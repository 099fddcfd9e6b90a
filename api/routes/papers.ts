import { Type as T } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { Served } from "../../search-index/answerCache";
import type { Deps } from "../../shared/context/deps";
import { invalidRequest } from "../../shared/core/errors";
import { Text } from "../../shared/core/text";
import { getPaper, searchPapersFielded, searchPaperTitles } from "../../shared/papers/catalog";
import { PaginationSchema, type PaperPageJson, PaperPageSchema, pageJson } from "../../shared/papers/page";
import {
  DEFAULT_LIMIT,
  daySchema,
  FieldedQuerySchema,
  LIMIT_BOUNDS,
  PAGE_BOUNDS,
  PaperFiltersSchema,
} from "../../shared/papers/schemas";
import { PaperSchema } from "../../shared/records/paper";
import { failures } from "../openapi/declare";
import { jsonResponse } from "../plugins/largeBodies";
import { ctxOf } from "../requestState";

/** Elysia's `t.Integer` (a query string is text) with the shared paging bounds: see shared/papers/schemas.ts. */
const TitleQuery = t.Object({
  q: Text({ minLength: 1, maxLength: 300, description: "Words to find in titles." }),
  page: t.Optional(t.Integer({ ...PAGE_BOUNDS, default: 0 })),
  limit: t.Optional(t.Integer({ ...LIMIT_BOUNDS, default: DEFAULT_LIMIT, description: "Capped by the plan." })),
});

const Day = t.Optional(daySchema("A UTC day, `YYYY-MM-DD`, inclusive."));

/**
 * Sort values are free text here: unknown ones fall back (spec rule 2) rather than fail. Integers
 * are TypeBox's, which take JSON numbers only (a JSON body is not coerced: `"limit": "1"` is a 400).
 */
const AdvancedBody = t.Object(
  {
    searchFilterString: PaperFiltersSchema,
    page: t.Optional(T.Integer({ ...PAGE_BOUNDS, description: "Zero-based page (alias: startIndex)." })),
    startIndex: t.Optional(T.Integer(PAGE_BOUNDS)),
    limit: t.Optional(
      T.Integer({ ...LIMIT_BOUNDS, description: "Page size (alias: maxResults); capped by the plan." }),
    ),
    maxResults: t.Optional(T.Integer(LIMIT_BOUNDS)),
    sortBy: t.Optional(Text({ maxLength: 64, description: "relevance (default), submittedDate, lastUpdatedDate." })),
    sortOrder: t.Optional(
      Text({ maxLength: 64, description: "ascending (default) or descending; asc, desc, dsc too." }),
    ),
    submittedFrom: Day,
    submittedTo: Day,
    updatedFrom: Day,
    updatedTo: Day,
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
  query: FieldedQuerySchema,
});

/**
 * Search pages go out as prebuilt JSON: the papers are Meilisearch's own bytes (see PaperPageJson),
 * so they are neither parsed nor serialised again (and a large page leaves as a stream: see
 * largeBodies.ts). Elysia does not re-check a Response against the route's response schema, which
 * stays as documentation; the papers are stored only from validated records (`toPaper`) and
 * retrieved with exactly the record's fields, which the search tests compare against the source
 * records.
 */
function pageResponse(page: Served<PaperPageJson>, extra?: Record<string, unknown>): Response {
  const response = jsonResponse(pageJson(page, extra));
  response.headers.set(CACHE_HEADER, page.cache);
  return response;
}

/** How the answer cache served a search (`hit`, `miss`, `bypass`), for operators and the bench. */
const CACHE_HEADER = "x-search-cache";
const CACHE_NOTE =
  " The answer says how this process's answer cache served it in `X-Search-Cache`: `hit`, `miss`, or `bypass` (the cache could not confirm it is current); a cached answer is never older than the last index change announced.";

/** Fresh objects per app: Elysia's hook merging can write into a route's `detail`. */
const paperDocs = () => ({
  titleSearch: {
    tags: ["Papers"],
    summary: "Search paper titles",
    description: `Every query word must match a whole word of the title (case and diacritics folded, no typos or prefixes); quoted words must appear together.${CACHE_NOTE}`,
  },
  fieldedSearch: {
    tags: ["Papers"],
    summary: "Fielded paper search",
    description: `Filters are ANDed. Text filters match whole words (see the README); \`au\` takes a comma-separated list of names, all required; \`cat\` matches a category exactly or every category of an archive; \`id\` matches the paper id with or without version.${CACHE_NOTE}`,
  },
  paper: failures(
    {
      tags: ["Papers"],
      summary: "One paper by arXiv id, with or without version (`0704.0001`, `hep-th/9901001v2`)",
      parameters: [
        {
          name: "id",
          in: "path",
          required: true,
          description: "An arXiv id; the `/` of an old-style id may be sent as is or as `%2F`.",
          schema: { type: "string", minLength: 1 },
        },
      ],
    },
    "NOT_FOUND",
    // A malformed percent-escape in the id.
    "VALIDATION_FAILED",
  ),
});

export function paperRoutes(deps: Deps) {
  const docs = paperDocs();
  return new Elysia({ name: "routes/papers" })
    .get(
      "/api/v1/papers/search",
      async ({ request, query }) => pageResponse(await searchPaperTitles(ctxOf(deps, request), query)),
      { query: TitleQuery, response: PaperPageSchema, detail: docs.titleSearch },
    )
    .post(
      "/api/v1/papers/search",
      async ({ request, body: { searchFilterString, ...rest } }) => {
        const input = { ...rest, filters: searchFilterString, filtersPath: "/searchFilterString" };
        const result = await searchPapersFielded(ctxOf(deps, request), input);
        return pageResponse(result.page, { query: result.query });
      },
      { body: AdvancedBody, response: AdvancedPageSchema, detail: docs.fieldedSearch },
    )
    .get("/api/v1/papers/*", ({ request, params }) => getPaper(ctxOf(deps, request), { id: paperIdOf(params["*"]) }), {
      response: PaperSchema,
      detail: docs.paper,
    });
}

/** The wildcard arrives percent-encoded; a malformed escape (`%zz`) is the caller's mistake, not a 500. */
function paperIdOf(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidRequest([{ in: "params", path: "/*", message: "Not a valid percent-encoded paper id." }]);
  }
}
