import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import {
  addEntry,
  createTracker,
  getTracker,
  listTrackers,
  patchTracker,
  removeTracker,
} from "../../../shared/health/logs";
import {
  EntryInputSchema,
  EntrySchema,
  TRACKER_PAGE,
  TrackerInputSchema,
  TrackerListSchema,
  TrackerPatchSchema,
  TrackerSchema,
} from "../../../shared/health/schemas";
import { type Mount, V1 } from "../mount";
import { healthCtx } from "./profile";

export const TrackerParams = t.Object({ trackerId: t.String({ description: "A log id (`id` of a log)." }) });

export function trackerRoutes(deps: Pick<Deps, "sql">, mount: Mount = V1) {
  const detail = (summary: string, description?: string) => ({
    tags: mount.tags("Health"),
    summary,
    ...(description ? { description } : {}),
    security: mount.security,
  });
  return new Elysia({ name: `routes/health/trackers${mount.suffix}` })
    .post(
      `${mount.base}/health/trackers`,
      ({ request, body, set }) => {
        set.status = 201;
        return createTracker(healthCtx(deps, request), body);
      },
      {
        body: TrackerInputSchema,
        response: { 201: TrackerSchema },
        detail: detail(
          "Create a health log",
          "Needs consent (403 `CONSENT_REQUIRED` otherwise). New logs are `active`.",
        ),
      },
    )
    .get(`${mount.base}/health/trackers`, ({ request, query }) => listTrackers(healthCtx(deps, request), query), {
      query: t.Object({
        limit: t.Optional(
          t.Integer({ minimum: 1, maximum: TRACKER_PAGE.maxLimit, default: TRACKER_PAGE.defaultLimit }),
        ),
        cursor: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "The previous page's next_cursor." })),
      }),
      response: TrackerListSchema,
      detail: detail(
        "List health logs, newest first",
        "Each log carries its 5 newest entries (GET one log for all). Without consent the list is empty.",
      ),
    })
    .get(
      `${mount.base}/health/trackers/:trackerId`,
      ({ request, params }) => getTracker(healthCtx(deps, request), params.trackerId),
      {
        params: TrackerParams,
        response: TrackerSchema,
        detail: detail("Read one health log with all its entries (newest first)", "Needs consent."),
      },
    )
    .patch(
      `${mount.base}/health/trackers/:trackerId`,
      ({ request, params, body }) => patchTracker(healthCtx(deps, request), params.trackerId, body),
      {
        params: TrackerParams,
        body: TrackerPatchSchema,
        response: TrackerSchema,
        detail: detail(
          "Rename a log or change its status",
          "Moves: active → resolved or archived; resolved → active or archived; archived → active. Others are 409. Needs consent.",
        ),
      },
    )
    .delete(
      `${mount.base}/health/trackers/:trackerId`,
      ({ request, params }) => removeTracker(healthCtx(deps, request), params.trackerId),
      {
        params: TrackerParams,
        response: t.Object({ deleted: t.Literal(true) }),
        detail: detail("Delete a log and its entries, permanently", "Does not need consent."),
      },
    )
    .post(
      `${mount.base}/health/trackers/:trackerId/entries`,
      ({ request, params, body, set }) => {
        set.status = 201;
        return addEntry(healthCtx(deps, request), params.trackerId, body);
      },
      {
        params: TrackerParams,
        body: EntryInputSchema,
        response: { 201: EntrySchema },
        detail: detail(
          "Add an entry to an active log",
          "At least one observation; temperature and temperatureUnit together. The log keeps its newest 180 entries. Needs consent.",
        ),
      },
    );
}
