import { Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { Text } from "../../../shared/core/text";
import { analyteHistory } from "../../../shared/labs/history";
import { createPanel, getPanel, listPanels, removePanel } from "../../../shared/labs/panels";
import {
  AnalyteHistorySchema,
  LAB_LIMITS,
  LAB_PAGE,
  LabPanelInputSchema,
  LabPanelListSchema,
  LabPanelSchema,
} from "../../../shared/labs/schemas";
import { failures } from "../../openapi/declare";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";

const PanelParams = t.Object({ panelId: t.String({ description: "A lab panel id (`id` of a panel)." }) });

const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: LAB_PAGE.maxLimit, default: LAB_PAGE.defaultLimit })),
  cursor: t.Optional(Text({ minLength: 1, maxLength: 200, description: "The previous page's next_cursor." })),
});

const AnalyteParams = t.Object({
  name: Text({
    minLength: 1,
    maxLength: LAB_LIMITS.name,
    description: "A test name or synonym (`glucose`, `HbA1c`) or a LOINC code (`2345-7`).",
  }),
});

const AnalyteQuery = t.Object({
  unit: t.Optional(
    Text({ minLength: 1, maxLength: LAB_LIMITS.unit, description: "Convert values to this unit (`mmol/L`)." }),
  ),
});

/** OpenAPI summary and description of each route. */
const DOCS = {
  create: [
    "Enter a lab panel",
    "1–200 results. A result without a flag gets one computed from a numeric value and range; the LOINC code is looked up from the name. Needs consent.",
  ],
  list: ["List lab panels, newest collection first", "Without consent the list is empty."],
  get: ["Read one lab panel", "Needs consent."],
  remove: ["Delete a lab panel, permanently", "Does not need consent."],
  history: [
    "One analyte's results over time, oldest first",
    "By name, synonym or LOINC code. Values are converted to `unit` (default: the analyte's usual unit) where a conversion is known; others keep their own unit. Needs consent.",
  ],
} as const;

export function labRoutes(deps: Deps, mount: Mount = V1) {
  const detail = ([summary, description]: readonly [string, string], ...kinds: ErrorKind[]) =>
    failures({ tags: mount.tags("Health"), summary, description }, ...kinds);
  const ctx = (request: Request) => ctxOf(deps, request);
  const labs = `${mount.base}/health/labs`;
  return new Elysia({ name: `routes/health/labs${mount.suffix}` })
    .post(
      labs,
      ({ request, body, set }) => {
        set.status = 201;
        return createPanel(ctx(request), body);
      },
      {
        body: LabPanelInputSchema,
        response: { 201: LabPanelSchema },
        detail: detail(DOCS.create, "CONSENT_REQUIRED"),
      },
    )
    .get(labs, ({ request, query }) => listPanels(ctx(request), query), {
      query: ListQuery,
      response: LabPanelListSchema,
      detail: detail(DOCS.list),
    })
    .get(
      `${labs}/analytes/:name`,
      ({ request, params, query }) => analyteHistory(ctx(request), { name: params.name, unit: query.unit }),
      {
        params: AnalyteParams,
        query: AnalyteQuery,
        response: AnalyteHistorySchema,
        detail: detail(DOCS.history, "NOT_FOUND", "CONSENT_REQUIRED"),
      },
    )
    .get(`${labs}/:panelId`, ({ request, params }) => getPanel(ctx(request), { id: params.panelId }), {
      params: PanelParams,
      response: LabPanelSchema,
      detail: detail(DOCS.get, "NOT_FOUND", "CONSENT_REQUIRED"),
    })
    .delete(`${labs}/:panelId`, ({ request, params }) => removePanel(ctx(request), { id: params.panelId }), {
      params: PanelParams,
      response: t.Object({ deleted: t.Literal(true) }),
      detail: detail(DOCS.remove, "NOT_FOUND"),
    });
}
