import { type Static, Type as T } from "@sinclair/typebox";
import { ProfileSchema } from "../health/schemas";

/**
 * Shapes of what a health-record import keeps from a FHIR R4 Bundle or a C-CDA document: conditions,
 * medications, allergies, lab results and immunizations, each with where it came from, and a summary
 * of the whole file (what was kept, what was skipped by resource type, whom the record is about).
 */

export const RecordSourceSchema = T.Object({
  file: T.Optional(T.String()),
  resourceType: T.Union(
    [
      T.Literal("Condition"),
      T.Literal("MedicationStatement"),
      T.Literal("MedicationRequest"),
      T.Literal("AllergyIntolerance"),
      T.Literal("Observation"),
      T.Literal("Immunization"),
    ],
    { description: "The FHIR resource it was read from (a C-CDA document is converted to FHIR first)." },
  ),
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
  referenceRange: T.Optional(
    T.Object({ low: T.Optional(T.Number()), high: T.Optional(T.Number()), text: T.Optional(T.String()) }),
  ),
  flag: T.Optional(T.Union([T.Literal("low"), T.Literal("high"), T.Literal("normal"), T.Literal("abnormal")])),
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

/** What every stored item carries besides its own fields: its id and the import it came from. */
const StoredIds = T.Object({
  id: T.String({ format: "uuid" }),
  importId: T.String({ format: "uuid", description: "The import it came from; undoing that import removes it." }),
});

export const StoredConditionSchema = T.Object({ ...StoredIds.properties, ...ImportedConditionSchema.properties });
export const StoredMedicationSchema = T.Object({ ...StoredIds.properties, ...ImportedMedicationSchema.properties });
export const StoredAllergySchema = T.Object({ ...StoredIds.properties, ...ImportedAllergySchema.properties });
export const StoredImmunizationSchema = T.Object({ ...StoredIds.properties, ...ImportedImmunizationSchema.properties });

/**
 * The profile's sections filled by imports. Conditions and medications are the active ones (the
 * export has the rest); the same concept from two imports is listed once, from the newest import.
 */
export const RecordSectionsSchema = T.Object({
  allergies: T.Array(StoredAllergySchema, { description: "Allergies and intolerances, from imported records." }),
  importedConditions: T.Array(StoredConditionSchema, { description: "Active conditions from imported records." }),
  importedMedications: T.Array(StoredMedicationSchema, { description: "Active medications from imported records." }),
  immunizations: T.Array(StoredImmunizationSchema, {
    description: "Immunizations from imported records, newest first.",
  }),
});

export const RecordImportSchema = T.Object({
  id: T.String({ format: "uuid" }),
  fileId: T.String({ format: "uuid", description: "The upload it was read from." }),
  filename: T.String(),
  format: T.Union([T.Literal("fhir"), T.Literal("ccda")]),
  patient: T.Object({
    name: T.Union([T.String(), T.Null()]),
    birthDate: T.Union([T.String(), T.Null()]),
  }),
  createdAt: T.String({ format: "date-time" }),
  kept: RecordSummarySchema.properties.kept,
  skipped: RecordSummarySchema.properties.skipped,
  problems: RecordSummarySchema.properties.problems,
  labPanels: T.Integer({ description: "Lab panels stored (one per collection time)." }),
  labResultsAlreadyStored: T.Integer({
    description: "Lab results left out because the same result (test, time, value) was already stored.",
  }),
});

export const RecordImportListSchema = T.Object({
  consentGiven: T.Boolean(),
  imports: T.Array(RecordImportSchema, { description: "Newest first." }),
});

export const RecordImportPendingSchema = T.Object({
  status: T.Literal("processing", { description: "The record is still being read: import again, or list imports." }),
});

export const RecordUndoSchema = T.Object({
  deleted: T.Literal(true),
  itemsDeleted: T.Integer({ description: "Conditions, medications, allergies and immunizations removed." }),
  labPanelsDeleted: T.Integer(),
});

export type StoredCondition = Static<typeof StoredConditionSchema>;
export type StoredMedication = Static<typeof StoredMedicationSchema>;
export type StoredAllergy = Static<typeof StoredAllergySchema>;
export type StoredImmunization = Static<typeof StoredImmunizationSchema>;
export type RecordSections = Static<typeof RecordSectionsSchema>;
export type RecordImport = Static<typeof RecordImportSchema>;
export type RecordImportList = Static<typeof RecordImportListSchema>;
export type RecordUndo = Static<typeof RecordUndoSchema>;

/** The health profile as served: what the person typed, and the sections imports fill. */
export const HealthProfileSchema = T.Object({ ...ProfileSchema.properties, ...RecordSectionsSchema.properties });
export type HealthProfile = Static<typeof HealthProfileSchema>;

/** The health export's shape as the OpenAPI document declares it; the R4 definitions hold the rest. */
export const HealthBundleSchema = T.Object(
  {
    resourceType: T.Literal("Bundle"),
    type: T.Literal("collection"),
    timestamp: T.String({ format: "date-time" }),
    entry: T.Array(
      T.Object({
        fullUrl: T.String({ description: "`urn:uuid:…`" }),
        resource: T.Object(
          { resourceType: T.String() },
          {
            additionalProperties: true,
            description:
              "Patient, Condition, MedicationStatement, AllergyIntolerance, Immunization, DiagnosticReport or Observation (https://hl7.org/fhir/R4/).",
          },
        ),
      }),
      { description: "The Patient first, then conditions, medications, allergies, immunizations and lab panels." },
    ),
  },
  { description: "A FHIR R4 Bundle (https://hl7.org/fhir/R4/bundle.html)." },
);
