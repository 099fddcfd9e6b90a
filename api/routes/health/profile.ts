import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { deleteProfile, getProfile, saveProfile } from "../../../shared/health/profile";
import { ProfileDeletionSchema, ProfileInputSchema, ProfileSchema } from "../../../shared/health/schemas";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

export function profileRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/profile${mount.suffix}` })
    .get(`${mount.base}/health/profile`, ({ request }) => getProfile(ctxOf(deps, request)), {
      response: ProfileSchema,
      detail: {
        tags: mount.tags("Health"),
        summary: "Read the health profile",
        description: "Without a saved profile: `consentGiven: false`, empty lists and null timestamps.",
      },
    })
    .post(`${mount.base}/health/profile`, ({ request, body }) => saveProfile(ctxOf(deps, request), body), {
      body: ProfileInputSchema,
      response: ProfileSchema,
      detail: {
        tags: mount.tags("Health"),
        summary: "Save (replace) the health profile and give consent",
        description: "`consentGiven` must be true. Omitted lists are saved empty. Returns the stored profile.",
      },
    })
    .delete(`${mount.base}/health/profile`, ({ request }) => deleteProfile(ctxOf(deps, request)), {
      query: t.Object({
        confirm: t.Literal("delete", { description: "Must be `delete`; without it nothing is deleted." }),
      }),
      response: ProfileDeletionSchema,
      detail: {
        tags: mount.tags("Health"),
        summary: "Delete the profile, every log with its entries, and the lab panels",
        description: "One transaction; consent is withdrawn. Repeating it deletes nothing more and still answers 200.",
      },
    });
}
