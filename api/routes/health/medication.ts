import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { lookupMedication } from "../../../shared/references/medication";
import { MedicationReferenceSchema } from "../../../shared/references/schemas";
import { ctxOf } from "../../requestState";
import { API_KEY_SECURITY } from "../security";

export function medicationRoutes(deps: Deps) {
  return new Elysia({ name: "routes/health/medication" }).get(
    "/api/v1/health/medication",
    ({ request, query }) => lookupMedication(ctxOf(deps, request), query),
    {
      query: t.Object({
        name: t.String({
          minLength: 1,
          maxLength: 120,
          pattern: "\\S",
          description: "A medication name (brand or generic, misspellings tolerated), an RxCUI or an NDC.",
        }),
      }),
      response: MedicationReferenceSchema,
      detail: {
        tags: ["Health"],
        summary: "Medication labeling reference (RxNorm + FDA label)",
        description:
          "Labeling reference, not medical advice and not a drug-interaction assessment. Answers come from a cache (7 days); a cache miss is looked up on the queue. Upstream down with nothing cached → 502 naming the upstream; with an older cached answer → 200 with `cache.*.state: stale`.",
        security: API_KEY_SECURITY,
      },
    },
  );
}
