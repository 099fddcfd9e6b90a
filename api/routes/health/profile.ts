import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/deps";
import { ProfileDeletionSchema, ProfileInputSchema, ProfileSchema } from "../../../shared/health/schemas";
import { deleteProfile, getProfile, type HealthCtx, saveProfile } from "../../../shared/services/healthProfile";
import { callerOf } from "../../requestState";
import { API_KEY_SECURITY } from "../security";

/** The health verbs' context for this request's caller. */
export function healthCtx(deps: Pick<Deps, "sql">, request: Request): HealthCtx {
  return { sql: deps.sql, accountId: callerOf(request).principal.accountId };
}

export function profileRoutes(deps: Pick<Deps, "sql">) {
  return new Elysia({ name: "routes/health/profile" })
    .get("/api/v1/health/profile", ({ request }) => getProfile(healthCtx(deps, request)), {
      response: ProfileSchema,
      detail: {
        tags: ["Health"],
        summary: "Read the health profile",
        description: "Without a saved profile: `consentGiven: false`, empty lists and null timestamps.",
        security: API_KEY_SECURITY,
      },
    })
    .post("/api/v1/health/profile", ({ request, body }) => saveProfile(healthCtx(deps, request), body), {
      body: ProfileInputSchema,
      response: ProfileSchema,
      detail: {
        tags: ["Health"],
        summary: "Save (replace) the health profile and give consent",
        description: "`consentGiven` must be true. Omitted lists are saved empty. Returns the stored profile.",
        security: API_KEY_SECURITY,
      },
    })
    .delete("/api/v1/health/profile", ({ request }) => deleteProfile(healthCtx(deps, request)), {
      query: t.Object({
        confirm: t.Literal("delete", { description: "Must be `delete`; without it nothing is deleted." }),
      }),
      response: ProfileDeletionSchema,
      detail: {
        tags: ["Health"],
        summary: "Delete the profile, every log with its entries, and the lab panels",
        description: "One transaction; consent is withdrawn. Repeating it deletes nothing more and still answers 200.",
        security: API_KEY_SECURITY,
      },
    });
}
