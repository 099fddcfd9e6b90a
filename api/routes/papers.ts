import { Elysia, t } from "elysia";
import { searchTitles } from "../../search-index/searchPapers";
import { findPaperById } from "../../shared/db/repositories/papers";
import type { Deps } from "../../shared/deps";
import { AppError } from "../../shared/errors";
import { isArxivId } from "../../shared/papers/ids";
import { baseArxivId, PaperSchema } from "../../shared/papers/record";
import { unavailable } from "../../shared/services/unavailable";
import { callerOf } from "../requestState";

export const PaginationSchema = t.Object({
  page: t.Integer({ description: "Zero-based page index." }),
  limit: t.Integer({ description: "Page size actually applied (after the plan's cap)." }),
  hasMore: t.Boolean({ description: "Exact: true only when the next page has at least one result." }),
  nextPage: t.Union([t.Integer(), t.Null()]),
});

export const PaperPageSchema = t.Object({ data: t.Array(PaperSchema), pagination: PaginationSchema });

const SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

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
        return searchTitles(deps.meili, deps.env.MEILI_INDEX_PREFIX, { q, page: query.page ?? 0, limit }).catch(
          unavailable("Meilisearch"),
        );
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
