import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { deleteProfile } from "../../../shared/health/profile";
import { ProfileDeletionSchema, ProfileInputSchema } from "../../../shared/health/schemas";
import { HealthProfileSchema } from "../../../shared/healthRecords/schemas";
import { getHealthProfile, saveHealthProfile } from "../../../shared/healthRecords/sections";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

export function profileRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/profile${mount.suffix}` })
    .get(`${mount.base}/health/profile`, ({ request }) => getHealthProfile(ctxOf(deps, request)), {
      response: HealthProfileSchema,
      detail: {
        tags: mount.tags("Health"),
        summary: "Read the health profile",
        description:
          "What the person typed (conditions, medications) and what imported records add: allergies, active conditions and medications with their codes, immunizations; each imported item names its source. Without a saved profile: `consentGiven: false`, empty lists and null timestamps.",
      },
    })
    .post(`${mount.base}/health/profile`, ({ request, body }) => saveHealthProfile(ctxOf(deps, request), body), {
      body: ProfileInputSchema,
      response: HealthProfileSchema,
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
        summary: "Delete the profile, every log with its entries, the lab panels, imported records and share links",
        description: "One transaction; consent is withdrawn. Repeating it deletes nothing more and still answers 200.",
      },
    });
}
