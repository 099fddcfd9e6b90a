import { type Static, Type as T } from "@sinclair/typebox";

/**
 * Shapes of what a health-record import keeps from a FHIR R4 Bundle or a C-CDA document: conditions,
 * medications, allergies, lab results and immunizations, each with where it came from, and a summary
 * of the whole file (what was kept, what was skipped by resource type, whom the record is about).
 */

export const KEPT_RESOURCE_TYPES = [
  "Condition",
  "MedicationStatement",
  "MedicationRequest",
  "AllergyIntolerance",
  "Observation",
  "Immunization",
] as const;

export const RecordSourceSchema = T.Object({
  file: T.Optional(T.String()),
  resourceType: T.Union(KEPT_RESOURCE_TYPES.map((type) => T.Literal(type))),
  resourceId: T.String({ description: "The resource's id, or its entry's fullUrl when it has none." }),
  date: T.Optional(T.String({ description: "The resource's own date (onset, authored, recorded, effective)." })),
});

/** One code of a CodeableConcept, as sent (the CVX system normalised). */
export const CodingSchema = T.Object({
  system: T.Optional(T.String()),
  code: T.String(),
  display: T.Optional(T.String()),
});

const Name = T.String({ description: "The concept's text or first display, else its first code." });
const Codes = T.Array(CodingSchema);

export const ImportedConditionSchema = T.Object({
  name: Name,
  codes: Codes,
  clinicalStatus: T.Optional(T.String({ description: "active, recurrence, relapse, inactive, remission, resolved" })),
  active: T.Boolean({
    description: "Clinical status active, recurrence or relapse (or none given, with no abatement).",
  }),
  onset: T.Optional(T.String()),
  source: RecordSourceSchema,
});

export const ImportedMedicationSchema = T.Object({
  name: Name,
  codes: Codes,
  rxnorm: T.Optional(T.String({ description: "The RxNorm code, when one is given." })),
  status: T.Optional(T.String()),
  active: T.Boolean(),
  source: RecordSourceSchema,
});

export const ImportedAllergySchema = T.Object({
  substance: Name,
  codes: Codes,
  reactions: T.Array(T.String(), { description: "Each reaction's manifestation." }),
  criticality: T.Optional(T.String({ description: "low, high or unable-to-assess" })),
  clinicalStatus: T.Optional(T.String()),
  source: RecordSourceSchema,
});

export const ImportedLabResultSchema = T.Object({
  name: Name,
  loinc: T.Optional(T.String()),
  value: T.Optional(T.Number()),
  valueText: T.Optional(T.String({ description: "A value that is not a quantity (text or a coded result)." })),
  unit: T.Optional(T.String()),
  effective: T.Optional(T.String()),
  analyte: T.Optional(T.String({ description: "The LOINC code of the catalogue analyte it maps to (shared/labs)." })),
  source: RecordSourceSchema,
});

export const ImportedImmunizationSchema = T.Object({
  vaccine: Name,
  codes: Codes,
  cvx: T.Optional(T.String()),
  date: T.Optional(T.String()),
  status: T.Optional(T.String()),
  source: RecordSourceSchema,
});

/** A kept resource that failed R4 validation: dropped when a problem touches a field that is read. */
export const RecordProblemSchema = T.Object({
  resourceType: T.String(),
  resourceId: T.String(),
  kept: T.Boolean(),
  problems: T.Array(T.String()),
});

export const RecordSummarySchema = T.Object({
  format: T.Union([T.Literal("fhir"), T.Literal("ccda")]),
  patient: T.Object({ name: T.Optional(T.String()), birthDate: T.Optional(T.String()) }),
  kept: T.Object({
    conditions: T.Integer(),
    medications: T.Integer(),
    allergies: T.Integer(),
    labResults: T.Integer(),
    immunizations: T.Integer(),
  }),
  skipped: T.Record(T.String(), T.Integer(), { description: "Resources not kept, by resource type." }),
  problems: T.Array(RecordProblemSchema),
});

export const ImportedRecordSchema = T.Object({
  conditions: T.Array(ImportedConditionSchema),
  medications: T.Array(ImportedMedicationSchema),
  allergies: T.Array(ImportedAllergySchema),
  labResults: T.Array(ImportedLabResultSchema),
  immunizations: T.Array(ImportedImmunizationSchema),
  summary: RecordSummarySchema,
});

export type RecordSource = Static<typeof RecordSourceSchema>;
export type Coding = Static<typeof CodingSchema>;
export type ImportedCondition = Static<typeof ImportedConditionSchema>;
export type ImportedMedication = Static<typeof ImportedMedicationSchema>;
export type ImportedAllergy = Static<typeof ImportedAllergySchema>;
export type ImportedLabResult = Static<typeof ImportedLabResultSchema>;
export type ImportedImmunization = Static<typeof ImportedImmunizationSchema>;
export type RecordProblem = Static<typeof RecordProblemSchema>;
export type RecordSummary = Static<typeof RecordSummarySchema>;
export type ImportedRecord = Static<typeof ImportedRecordSchema>;
