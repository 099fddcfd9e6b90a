import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { ModelInfoSchema, modelsForPlan } from "../../shared/llm/models";
import { ctxOf } from "../requestState";
import { type Mount, V1 } from "./mount";

/** The health models the caller's plan can run (the website mounts it too). */
export function modelsRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/models${mount.suffix}` }).get(
    `${mount.base}/models`,
    ({ request }) => ({ surface: "health" as const, models: modelsForPlan(deps.models, ctxOf(deps, request).plan) }),
    {
      query: t.Object({ surface: t.Literal("health", { description: "Only health models exist." }) }),
      response: t.Object({ surface: t.Literal("health"), models: t.Array(ModelInfoSchema) }),
      detail: {
        tags: mount.tags("Chats"),
        summary: "Models the caller's plan can run",
      },
    },
  );
}
