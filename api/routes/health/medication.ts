import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { Text } from "../../../shared/core/text";
import { lookupMedicationJson } from "../../../shared/references/medication";
import { MedicationReferenceSchema } from "../../../shared/references/schemas";
import { failures } from "../../openapi/declare";
import { jsonResponse } from "../../plugins/largeBodies";
import { ctxOf } from "../../requestState";

export function medicationRoutes(deps: Deps) {
  return new Elysia({ name: "routes/health/medication" }).get(
    "/api/v1/health/medication",
    // The verb answers JSON text, checked against MedicationReferenceSchema when it was built (a held
    // answer is not parsed, checked or serialized again); Elysia does not re-check a Response, so
    // the schema below documents the route.
    async ({ request, query }) => jsonResponse(await lookupMedicationJson(ctxOf(deps, request), query)),
    {
      query: t.Object({
        name: Text({
          minLength: 1,
          maxLength: 120,
          pattern: "\\S",
          description: "A medication name (brand or generic, misspellings tolerated), an RxCUI or an NDC.",
        }),
      }),
      response: MedicationReferenceSchema,
      detail: failures(
        {
          tags: ["Health reference"],
          summary: "Medication labeling reference (RxNorm + FDA label)",
          description:
            "Labeling reference, not medical advice and not a drug-interaction assessment. Answers come from a cache (7 days); a cache miss is looked up on the queue. Upstream down with nothing cached → 502 naming the upstream; with an older cached answer → 200 with `cache.*.state: stale`.",
        },
        "NOT_FOUND",
        "UPSTREAM_FAILED",
      ),
    },
  );
}
