import { type Static, Type as T } from "@sinclair/typebox";
import type { AnalyteHistory, LabFlag, LabPanel } from "../labs/schemas";

/**
 * What the lab tools add to the verbs' answers so a model need not work it out: each panel's
 * flagged results in one list, and the direction of one analyte's values over time.
 */
const Nullable = (schema: ReturnType<typeof T.String>) => T.Union([schema, T.Null()]);

export const FlaggedResultSchema = T.Object({
  panelId: T.String({ format: "uuid" }),
  collectedAt: T.String({ format: "date-time" }),
  name: T.String(),
  code: Nullable(T.String()),
  valueText: T.String(),
  unit: Nullable(T.String()),
  range: Nullable(T.String({ description: "The reference range as printed, or built from its bounds." })),
  flag: T.Union([T.Literal("low"), T.Literal("high"), T.Literal("abnormal")]),
});
export type FlaggedResult = Static<typeof FlaggedResultSchema>;

const At = T.Object({ collectedAt: T.String({ format: "date-time" }), value: T.Number() });

export const TrendSchema = T.Union(
  [
    T.Object({
      direction: T.Union([T.Literal("rising"), T.Literal("falling"), T.Literal("steady")]),
      from: At,
      to: At,
      unit: Nullable(T.String()),
      change: T.Number({ description: "to.value − from.value, in unit." }),
      compared: T.Integer({ description: "How many values in this unit the trend is read from." }),
    }),
    T.Null(),
  ],
  {
    description:
      "First and last numeric values in the history's unit; steady when they differ by at most 2 %. Null with fewer than two.",
  },
);
export type Trend = Static<typeof TrendSchema>;

/** A range as people read it: the printed text, else its bounds. */
export function rangeText(range: { low: number | null; high: number | null; text: string | null }): string | null {
  if (range.text) return range.text;
  if (range.low !== null && range.high !== null) return `${range.low}–${range.high}`;
  if (range.low !== null) return `≥ ${range.low}`;
  return range.high !== null ? `≤ ${range.high}` : null;
}

const isFlagged = (flag: LabFlag | null): flag is "low" | "high" | "abnormal" => flag !== null && flag !== "normal";

export function flaggedIn(panels: readonly LabPanel[]): FlaggedResult[] {
  return panels.flatMap((panel) =>
    panel.results.flatMap((result) =>
      isFlagged(result.flag)
        ? [
            {
              panelId: panel.id,
              collectedAt: panel.collectedAt,
              name: result.name,
              code: result.code,
              valueText: result.valueText,
              unit: result.unit,
              range: rangeText(result.referenceRange),
              flag: result.flag,
            },
          ]
        : [],
    ),
  );
}

/** Relative change at or below which two values count as the same (lab variation is larger). */
const STEADY = 0.02;

export function trendOf(history: AnalyteHistory): Trend {
  const numeric = history.points.filter((point) => point.value !== null);
  const unit = history.analyte.unit ?? numeric.at(-1)?.unit ?? null;
  const comparable = numeric.filter((point) => point.unit === unit);
  const first = comparable[0];
  const last = comparable.at(-1);
  if (!first || !last || comparable.length < 2) return null;
  const from = { collectedAt: first.collectedAt, value: first.value as number };
  const to = { collectedAt: last.collectedAt, value: last.value as number };
  const change = Number((to.value - from.value).toPrecision(6));
  const steady = Math.abs(change) <= STEADY * Math.abs(from.value);
  const direction = steady ? "steady" : change > 0 ? "rising" : "falling";
  return { direction, from, to, unit, change, compared: comparable.length };
}
