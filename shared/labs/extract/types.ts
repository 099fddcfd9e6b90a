import { type Static, Type as T } from "@sinclair/typebox";
import { LabFlagSchema, ReferenceRangeSchema } from "../schemas";

/** One result read from a report's text: the stored result without its LOINC code, plus its page. */
export const ParsedResultSchema = T.Object({
  name: T.String({ description: "The test as printed, without a trailing colon." }),
  valueText: T.String({ description: "The value exactly as printed." }),
  value: T.Union([T.Number(), T.Null()]),
  unit: T.Union([T.String(), T.Null()]),
  referenceRange: ReferenceRangeSchema,
  flag: T.Union([LabFlagSchema, T.Null()], {
    description: "As printed; else computed from a numeric value and range; else null.",
  }),
  page: T.Integer({ minimum: 1, description: "1-based page the result was printed on." }),
});
export type ParsedResult = Static<typeof ParsedResultSchema>;

export const ParsedLabReportSchema = T.Object({
  lab: T.Union([T.String(), T.Null()]),
  collectedAt: T.Union([T.String(), T.Null()], {
    description: "Local date (`2026-03-14`) or date and time (`2026-03-14T08:30:00`) as printed; no zone.",
  }),
  results: T.Array(ParsedResultSchema),
});
export type ParsedLabReport = Static<typeof ParsedLabReportSchema>;
