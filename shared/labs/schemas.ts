import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { Text } from "../core/text";

/**
 * Shapes of lab panels and their results: the manual-entry body the API validates, the panel it
 * stores and returns, a page of panels and one analyte's history. Strings are validated as sent
 * (length, at least one non-space character) and stored trimmed.
 */
const NONBLANK = "\\S";
const Timestamp = T.String({ format: "date-time" });
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

export const LAB_LIMITS = { results: 200, name: 200, valueText: 100, unit: 40, rangeText: 100, lab: 200 } as const;
export const LAB_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** A LOINC code: up to seven digits, a hyphen and the check digit (2345-7). */
export const LOINC = "^[0-9]{1,7}-[0-9]$";
/** Values beyond this are typing slips, not measurements; the bound also keeps jsonb numbers tame. */
const VALUE_BOUND = 1e12;

export const LabFlagSchema = T.Union([T.Literal("low"), T.Literal("high"), T.Literal("normal"), T.Literal("abnormal")]);
export type LabFlag = Static<typeof LabFlagSchema>;

const LabValue = T.Number({ minimum: -VALUE_BOUND, maximum: VALUE_BOUND });
const Line = (max: number, description: string) =>
  Text({ minLength: 1, maxLength: max, pattern: NONBLANK, description });

export const ReferenceRangeInputSchema = T.Object(
  {
    low: T.Optional(LabValue),
    high: T.Optional(LabValue),
    text: T.Optional(
      Line(
        LAB_LIMITS.rangeText,
        "The range as printed (`3.5–5.0`, `< 200`); fills low and high when they are omitted.",
      ),
    ),
  },
  { additionalProperties: false },
);

export const LabResultInputSchema = T.Object(
  {
    name: Line(LAB_LIMITS.name, "The test as printed (`Hemoglobin`); 1–200 characters, trimmed."),
    code: T.Optional(T.String({ pattern: LOINC, description: "LOINC code; looked up from the name when omitted." })),
    value: T.Optional(LabValue),
    valueText: T.Optional(
      Line(LAB_LIMITS.valueText, "The value exactly as printed (`13.5`, `<0.5`, `positive`); defaults to `value`."),
    ),
    unit: T.Optional(Line(LAB_LIMITS.unit, "The unit as printed (`g/dL`, `mmol/L`).")),
    referenceRange: T.Optional(ReferenceRangeInputSchema),
    flag: T.Optional(LabFlagSchema),
  },
  { additionalProperties: false, description: "At least one of value and valueText." },
);
export type LabResultInput = Static<typeof LabResultInputSchema>;

export const LabPanelInputSchema = T.Object(
  {
    collectedAt: T.String({
      format: "date-time",
      description: "When the sample was collected (not in the future); stored to the millisecond.",
    }),
    lab: T.Optional(Line(LAB_LIMITS.lab, "The laboratory's name; 1–200 characters, trimmed.")),
    results: T.Array(LabResultInputSchema, { minItems: 1, maxItems: LAB_LIMITS.results }),
  },
  { additionalProperties: false },
);
export type LabPanelInput = Static<typeof LabPanelInputSchema>;

export const ReferenceRangeSchema = T.Object({
  low: Nullable(T.Number()),
  high: Nullable(T.Number()),
  text: Nullable(T.String()),
});

export const LabResultSchema = T.Object({
  name: T.String(),
  code: T.Union([T.String(), T.Null()], { description: "LOINC code, when known." }),
  value: T.Union([T.Number(), T.Null()], { description: "The number in valueText, when it is one." }),
  valueText: T.String({ description: "The value exactly as given." }),
  unit: Nullable(T.String()),
  referenceRange: ReferenceRangeSchema,
  flag: T.Union([LabFlagSchema, T.Null()], {
    description: "As given; else computed from a numeric value and range; else null.",
  }),
});
export type LabResult = Static<typeof LabResultSchema>;

export const LabSourceSchema = T.Object({
  fileId: T.String({ format: "uuid" }),
  pages: T.Array(T.Integer({ minimum: 1 }), { description: "The report's pages it was read from; none for a record." }),
  recordImportId: T.Optional(
    T.String({
      format: "uuid",
      description: "Set when read from an imported health record: undoing that import removes the panel.",
    }),
  ),
});

export const LabPanelSchema = T.Object({
  id: T.String({ format: "uuid" }),
  collectedAt: Timestamp,
  lab: Nullable(T.String()),
  source: T.Union([LabSourceSchema, T.Null()], {
    description: "The upload it was read from (a PDF report or a health record); null when entered.",
  }),
  createdAt: Timestamp,
  results: T.Array(LabResultSchema),
});
export type LabPanel = Static<typeof LabPanelSchema>;

export const LabPanelListSchema = T.Object({
  consentGiven: T.Boolean(),
  panels: T.Array(LabPanelSchema, { description: "Newest collectedAt first." }),
  next_cursor: T.Union([T.String(), T.Null()], {
    description: "Pass as `cursor` for the next page; null on the last.",
  }),
});
export type LabPanelList = Static<typeof LabPanelListSchema>;

export const AnalyteHistorySchema = T.Object({
  analyte: T.Object({
    name: T.String(),
    code: Nullable(T.String()),
    unit: T.Union([T.String(), T.Null()], { description: "The unit the values are converted to, when one is." }),
  }),
  points: T.Array(
    T.Object({
      collectedAt: Timestamp,
      value: Nullable(T.Number()),
      unit: T.Union([T.String(), T.Null()], {
        description: "The analyte's unit, or the result's own when no conversion is known.",
      }),
      flag: T.Union([LabFlagSchema, T.Null()]),
      panelId: T.String({ format: "uuid" }),
    }),
    { description: "Oldest first." },
  ),
});
export type AnalyteHistory = Static<typeof AnalyteHistorySchema>;

/** What an import answers: the panels read from the report (201 new, 200 already imported). */
export const LabImportSchema = T.Object({
  panels: T.Array(LabPanelSchema, { description: "One per collection date the report prints; newest first." }),
});
export type LabImport = Static<typeof LabImportSchema>;

export const LabImportPendingSchema = T.Object({
  status: T.Literal("processing", {
    description: "Still being read: the panels appear in the list when done; importing again answers them.",
  }),
});
