import { Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { analyteHistory } from "../labs/history";
import { listPanels } from "../labs/panels";
import { AnalyteHistorySchema, LAB_LIMITS, type LabPanel, LabPanelListSchema } from "../labs/schemas";
import { READ_ONLY } from "./annotations";
import { FlaggedResultSchema, flaggedIn, TrendSchema, trendOf } from "./labTrend";
import { defineTool } from "./types";

/**
 * Lab-result tools: the verbs of /api/v1/health/labs, so consent and ownership are the same (no
 * consent → an empty list, CONSENT_REQUIRED for a history; only the caller's panels are read).
 */
const PAGE = { defaultLimit: 5, maxLimit: 20 } as const;

const onlyFlagged = (panel: LabPanel): LabPanel => ({
  ...panel,
  results: panel.results.filter((result) => result.flag !== null && result.flag !== "normal"),
});

const day = (timestamp: string) => timestamp.slice(0, 10);

export const listLabPanelsTool = defineTool({
  name: "list_lab_panels",
  title: "List lab panels and flagged values",
  description:
    "The caller's lab panels (blood tests and other lab reports), newest collection first, each with its results: value as printed, unit, reference range and flag (low, high, normal, abnormal). `flagged` lists every low, high or abnormal result of the panels returned; `flaggedOnly` keeps only those results in each panel. Empty without consent. Page with cursor = next_cursor.",
  input: T.Object(
    {
      limit: T.Optional(T.Integer({ minimum: 1, maximum: PAGE.maxLimit, default: PAGE.defaultLimit })),
      cursor: T.Optional(Text({ minLength: 1, maxLength: 200, description: "The previous page's next_cursor." })),
      flaggedOnly: T.Optional(T.Boolean({ description: "Only low, high and abnormal results in each panel." })),
    },
    { additionalProperties: false },
  ),
  output: T.Composite([LabPanelListSchema, T.Object({ flagged: T.Array(FlaggedResultSchema) })]),
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: async (ctx, input) => {
    const page = await listPanels(ctx, { limit: input.limit ?? PAGE.defaultLimit, cursor: input.cursor });
    const panels = input.flaggedOnly ? page.panels.map(onlyFlagged) : page.panels;
    return { ...page, panels, flagged: flaggedIn(page.panels) };
  },
  render: (list) => {
    if (!list.consentGiven) return "Lab results need consent; none can be read.";
    if (list.panels.length === 0) return "No lab panels.";
    const panels = list.panels.map(
      (p) => `${day(p.collectedAt)}${p.lab ? ` ${p.lab}` : ""}: ${p.results.length} results (id ${p.id})`,
    );
    const flagged = list.flagged.map(
      (f) => `${f.name} ${f.valueText}${f.unit ? ` ${f.unit}` : ""} ${f.flag} (${day(f.collectedAt)})`,
    );
    return [...panels, `Flagged: ${flagged.join("; ") || "none"}`].join("\n");
  },
});

export const getLabHistoryTool = defineTool({
  name: "get_lab_history",
  title: "One lab test over time",
  description:
    "One analyte's results across the caller's lab panels, oldest first, by name or synonym (`HbA1c`, `LDL`, `blood sugar`) or LOINC code (`4548-4`). Values are converted to one unit (`unit`, default the analyte's usual one) where a conversion is known; `trend` compares the first and last values in that unit. Needs consent.",
  input: T.Object(
    {
      name: Text({
        minLength: 1,
        maxLength: LAB_LIMITS.name,
        pattern: "\\S",
        description: "A test name or synonym, or a LOINC code.",
      }),
      unit: T.Optional(
        Text({
          minLength: 1,
          maxLength: LAB_LIMITS.unit,
          pattern: "\\S",
          description: "Convert values to this unit (`mmol/L`).",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: T.Composite([AnalyteHistorySchema, T.Object({ trend: TrendSchema })]),
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: async (ctx, input) => {
    const history = await analyteHistory(ctx, input);
    return { ...history, trend: trendOf(history) };
  },
  render: (h) => {
    const head = `${h.analyte.name}${h.analyte.code ? ` (LOINC ${h.analyte.code})` : ""}`;
    if (h.points.length === 0) return `${head}: no results.`;
    const points = h.points.map(
      (p) => `${day(p.collectedAt)} ${p.value ?? "—"}${p.unit ? ` ${p.unit}` : ""}${p.flag ? ` ${p.flag}` : ""}`,
    );
    return [`${head}:`, ...points, h.trend ? `Trend: ${h.trend.direction}.` : ""].filter(Boolean).join("\n");
  },
});
