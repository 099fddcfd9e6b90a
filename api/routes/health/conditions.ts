import { Elysia, t } from "elysia";
import { LookupCache } from "../../../shared/conditions/lookupCache";
import {
  ConditionDetailSchema,
  ConditionLookupSchema,
  ConditionSearchSchema,
} from "../../../shared/conditions/schemas";
import {
  type ConditionsCtx,
  getCondition,
  lookupCondition,
  PAPERS_DEFAULT,
  searchConditions,
} from "../../../shared/conditions/verbs";
import type { Deps } from "../../../shared/context/deps";
import { AppError } from "../../../shared/core/errors";
import { API_KEY_SECURITY } from "../security";

const Name = (description: string) => t.Optional(t.String({ minLength: 2, maxLength: 120, description }));

function invalid(path: string, message: string): AppError {
  return new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
    details: [{ in: "query", path, message }],
  });
}

/** `q` and its alias `name`: one of them, or both with the same value; 2–120 characters once trimmed. */
function conditionName(query: { q?: string; name?: string }): string {
  const { q, name } = query;
  if (q !== undefined && name !== undefined && q.trim() !== name.trim()) {
    throw invalid("/name", "q and name are the same field; send one, or the same value");
  }
  const given = (q ?? name)?.trim();
  if (given === undefined) throw invalid("/q", "Expected q (or its alias name)");
  if (given.length < 2) throw invalid(q === undefined ? "/name" : "/q", "Expected at least 2 non-blank characters");
  return given;
}

function detail(summary: string, description: string) {
  return { tags: ["Health"], summary, description, security: API_KEY_SECURITY };
}

export function conditionRoutes(deps: Pick<Deps, "sql" | "meili" | "env">) {
  const ctx: ConditionsCtx = {
    sql: deps.sql,
    meili: deps.meili,
    indexPrefix: deps.env.MEILI_INDEX_PREFIX,
    cache: new LookupCache(),
  };
  return new Elysia({ name: "routes/health/conditions" })
    .get(
      "/api/v1/health/condition",
      ({ query }) => lookupCondition(ctx, { q: conditionName(query), papers: query.papers ?? PAPERS_DEFAULT }),
      {
        query: t.Object({
          q: Name("A condition name: a MONDO label or synonym, typos tolerated."),
          name: Name("Alias of q."),
          papers: t.Optional(
            t.Integer({ minimum: 0, maximum: 20, default: PAPERS_DEFAULT, description: "Related papers to return." }),
          ),
        }),
        response: ConditionLookupSchema,
        detail: detail(
          "Condition reference: a MONDO term and related research",
          "Resolves the name to one MONDO term: an exact label or exact-synonym match (case, diacritics and punctuation folded), else the best-ranked match in which every query word matched a whole word of the label or a synonym with at most one typo in all; otherwise 404. `papers` come from our paper index (title or abstract contains the label or an exact synonym as a phrase).",
        ),
      },
    )
    .get("/api/v1/health/condition/:mondoId", ({ params }) => getCondition(ctx, params.mondoId), {
      params: t.Object({ mondoId: t.String({ maxLength: 200, description: "`MONDO:0004979` or `MONDO_0004979`." }) }),
      response: ConditionDetailSchema,
      detail: detail("One MONDO term by id, with parents and children", "404 when the id is not a loaded MONDO term."),
    })
    .get(
      "/api/v1/health/conditions/search",
      ({ query }) => searchConditions(ctx, { q: conditionName({ q: query.q }), limit: query.limit ?? 10 }),
      {
        query: t.Object({
          q: t.String({ minLength: 2, maxLength: 120, description: "A condition name or its beginning." }),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 50, default: 10 })),
        }),
        response: ConditionSearchSchema,
        detail: detail(
          "Ranked MONDO candidates for a name",
          "Exact label/synonym matches first (score 1), then typo-tolerant and prefix matches by Meilisearch ranking score; `acceptable` says which a lookup may resolve to. No match is a 200 with `data: []`.",
        ),
      },
    );
}
