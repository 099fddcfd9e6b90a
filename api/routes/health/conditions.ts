import { Elysia, t } from "elysia";
import { getCondition, lookupCondition, PAPERS_DEFAULT, searchConditions } from "../../../shared/conditions/lookup";
import { LookupCache } from "../../../shared/conditions/lookupCache";
import {
  ConditionDetailSchema,
  type ConditionLookup,
  ConditionLookupSchema,
  ConditionSearchSchema,
} from "../../../shared/conditions/schemas";
import { SEARCH_DEFAULT } from "../../../shared/conditions/searchInput";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { Text } from "../../../shared/core/text";
import { failures } from "../../openapi/declare";
import { ctxOf } from "../../requestState";

const Name = (description: string) => t.Optional(Text({ minLength: 2, maxLength: 120, description }));

function detail(summary: string, description: string, ...kinds: ErrorKind[]) {
  return failures({ tags: ["Health reference"], summary, description }, ...kinds);
}

export function conditionRoutes(deps: Deps) {
  // This process's lookups, shared by every request these routes serve (see lookupCache.ts).
  const conditionLookups = new LookupCache<ConditionLookup>();
  return new Elysia({ name: "routes/health/conditions" })
    .get(
      "/api/v1/health/condition",
      ({ request, query }) => lookupCondition({ ...ctxOf(deps, request), conditionLookups }, query),
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
          "NOT_FOUND",
        ),
      },
    )
    .get("/api/v1/health/condition/:mondoId", ({ request, params }) => getCondition(ctxOf(deps, request), params), {
      params: t.Object({ mondoId: Text({ maxLength: 200, description: "`MONDO:0004979` or `MONDO_0004979`." }) }),
      response: ConditionDetailSchema,
      detail: detail(
        "One MONDO term by id, with parents and children",
        "404 when the id is not a loaded MONDO term.",
        "NOT_FOUND",
      ),
    })
    .get("/api/v1/health/conditions/search", ({ request, query }) => searchConditions(ctxOf(deps, request), query), {
      query: t.Object({
        q: Text({ minLength: 2, maxLength: 120, description: "A condition name or its beginning." }),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 50, default: SEARCH_DEFAULT })),
      }),
      response: ConditionSearchSchema,
      detail: detail(
        "Ranked MONDO candidates for a name",
        "Exact label/synonym matches first (score 1), then typo-tolerant and prefix matches by Meilisearch ranking score; `acceptable` says which a lookup may resolve to. No match is a 200 with `data: []`.",
      ),
    });
}
