import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { Text } from "../../../shared/core/text";
import { addEntry, createLog, getLog, listLogs, patchLog, removeLog } from "../../../shared/health/logs";
import {
  EntryInputSchema,
  EntrySchema,
  HealthLogInputSchema,
  HealthLogListSchema,
  HealthLogPatchSchema,
  HealthLogSchema,
  LOG_PAGE,
} from "../../../shared/health/schemas";
import { failures } from "../../openapi/declare";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

/** Paths and the path parameter keep the spec's word, `trackers` / `trackerId`. */
export const LogParams = t.Object({ trackerId: t.String({ description: "A log id (`id` of a log)." }) });

const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: LOG_PAGE.maxLimit, default: LOG_PAGE.defaultLimit })),
  cursor: t.Optional(Text({ minLength: 1, maxLength: 200, description: "The previous page's next_cursor." })),
});

/** OpenAPI summary and description of each route. */
const DOCS = {
  create: ["Create a health log", "Needs consent (403 `CONSENT_REQUIRED` otherwise). New logs are `active`."],
  list: [
    "List health logs, newest first",
    "Each log carries its 5 newest entries (GET one log for all). Without consent the list is empty.",
  ],
  get: ["Read one health log with all its entries (newest first)", "Needs consent."],
  patch: [
    "Rename a log or change its status",
    "Moves: active → resolved or archived; resolved → active or archived; archived → active. Others are 409. Needs consent.",
  ],
  remove: ["Delete a log and its entries, permanently", "Does not need consent."],
  addEntry: [
    "Add an entry to an active log",
    "At least one observation; temperature and temperatureUnit together. The log keeps its newest 180 entries. Needs consent.",
  ],
} as const;

export function healthLogRoutes(deps: Deps, mount: Mount = V1) {
  const detail = ([summary, description]: readonly [string, string], ...kinds: ErrorKind[]) =>
    failures({ tags: mount.tags("Health"), summary, description }, ...kinds);
  const ctx = (request: Request) => ctxOf(deps, request);
  const logs = `${mount.base}/health/trackers`;
  const log = `${logs}/:trackerId`;
  return new Elysia({ name: `routes/health/logs${mount.suffix}` })
    .post(
      logs,
      ({ request, body, set }) => {
        set.status = 201;
        return createLog(ctx(request), body);
      },
      {
        body: HealthLogInputSchema,
        response: { 201: HealthLogSchema },
        detail: detail(DOCS.create, "CONSENT_REQUIRED"),
      },
    )
    .get(logs, ({ request, query }) => listLogs(ctx(request), query), {
      query: ListQuery,
      response: HealthLogListSchema,
      detail: detail(DOCS.list),
    })
    .get(log, ({ request, params }) => getLog(ctx(request), { id: params.trackerId }), {
      params: LogParams,
      response: HealthLogSchema,
      detail: detail(DOCS.get, "NOT_FOUND", "CONSENT_REQUIRED"),
    })
    .patch(log, ({ request, params, body }) => patchLog(ctx(request), { id: params.trackerId, changes: body }), {
      params: LogParams,
      body: HealthLogPatchSchema,
      response: HealthLogSchema,
      detail: detail(DOCS.patch, "NOT_FOUND", "CONSENT_REQUIRED", "CONFLICT"),
    })
    .delete(log, ({ request, params }) => removeLog(ctx(request), { id: params.trackerId }), {
      params: LogParams,
      response: t.Object({ deleted: t.Literal(true) }),
      detail: detail(DOCS.remove, "NOT_FOUND"),
    })
    .post(
      `${log}/entries`,
      ({ request, params, body, set }) => {
        set.status = 201;
        return addEntry(ctx(request), { logId: params.trackerId, entry: body });
      },
      {
        params: LogParams,
        body: EntryInputSchema,
        response: { 201: EntrySchema },
        detail: detail(DOCS.addEntry, "NOT_FOUND", "CONSENT_REQUIRED", "CONFLICT"),
      },
    );
}
