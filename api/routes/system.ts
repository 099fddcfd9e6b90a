import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { checkReadiness } from "../../shared/system/readiness";

const Dependency = t.Object({ ok: t.Boolean(), latencyMs: t.Number(), error: t.Optional(t.String()) });

export function systemRoutes(deps: Pick<Deps, "sql" | "redis" | "meili">) {
  return new Elysia({ name: "routes/system" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: t.Object({ status: t.Literal("ok") }),
      detail: { tags: ["System"], summary: "Liveness: the process answers" },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const readiness = await checkReadiness(deps);
        if (!readiness.ready) {
          set.status = 503;
          set.headers["retry-after"] = "5";
        }
        return readiness;
      },
      {
        response: {
          200: t.Object({ ready: t.Boolean(), checks: t.Record(t.String(), Dependency) }),
          503: t.Object({ ready: t.Boolean(), checks: t.Record(t.String(), Dependency) }),
        },
        detail: {
          tags: ["System"],
          summary: "Readiness: PostgreSQL, Redis and Meilisearch reachable",
          description: "503 with the failing dependency marked `ok: false` when one is unreachable.",
        },
      },
    );
}
