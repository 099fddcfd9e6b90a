import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { LogKindSchema } from "../../../shared/health/schemas";
import { listSymptomOptions, SymptomOptionsSchema } from "../../../shared/health/symptoms";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

export const symptomRoutes = (deps: Deps, mount: Mount = V1) =>
  new Elysia({ name: `routes/health/symptoms${mount.suffix}` }).get(
    `${mount.base}/health/symptoms`,
    ({ request, query }) => listSymptomOptions(ctxOf(deps, request), { kind: query.kind ?? "acute" }),
    {
      query: t.Object({ kind: t.Optional(LogKindSchema) }),
      response: SymptomOptionsSchema,
      detail: {
        tags: mount.tags("Health"),
        summary: "Symptom options for a log kind",
        description: "The symptom choices the website offers for `acute` (default), `pregnancy` or `custom` logs.",
      },
    },
  );
