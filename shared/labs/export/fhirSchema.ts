import { type Static, Type as T } from "@sinclair/typebox";

/**
 * The subset of FHIR R4 the lab export writes: a `collection` Bundle of DiagnosticReport and
 * Observation resources. Only the elements we fill are declared; the R4 definitions themselves are
 * at https://hl7.org/fhir/R4/ (the tests validate every export against them).
 */
export const FHIR_SYSTEMS = {
  loinc: "http://loinc.org",
  ucum: "http://unitsofmeasure.org",
  observationCategory: "http://terminology.hl7.org/CodeSystem/observation-category",
  interpretation: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
  diagnosticService: "http://terminology.hl7.org/CodeSystem/v2-0074",
} as const;

const Instant = T.String({ format: "date-time" });

const CodingSchema = T.Object({ system: T.String(), code: T.String(), display: T.Optional(T.String()) });

const CodeableConceptSchema = T.Object({
  coding: T.Optional(T.Array(CodingSchema)),
  text: T.Optional(T.String()),
});

const QuantitySchema = T.Object({
  value: T.Number(),
  comparator: T.Optional(
    T.Union([T.Literal("<"), T.Literal("<="), T.Literal(">="), T.Literal(">")], {
      description: "From a printed value such as `<0.5`.",
    }),
  ),
  unit: T.Optional(T.String({ description: "The unit as printed." })),
  system: T.Optional(T.Literal(FHIR_SYSTEMS.ucum)),
  code: T.Optional(T.String({ description: "The UCUM code, when the unit is known." })),
});
export type FhirQuantity = Static<typeof QuantitySchema>;

const ReferenceSchema = T.Object({ reference: T.Optional(T.String()), display: T.Optional(T.String()) });

const ReferenceRangeSchema = T.Object({
  low: T.Optional(QuantitySchema),
  high: T.Optional(QuantitySchema),
  text: T.Optional(T.String()),
});
export type FhirReferenceRange = Static<typeof ReferenceRangeSchema>;

/** What an observation and its report both carry: a final lab result, its code, when, by whom. */
const RESULT_HEADER = {
  status: T.Literal("final"),
  category: T.Array(CodeableConceptSchema),
  code: CodeableConceptSchema,
  effectiveDateTime: Instant,
  issued: Instant,
  performer: T.Optional(T.Array(ReferenceSchema)),
};

export const ObservationSchema = T.Object({
  resourceType: T.Literal("Observation"),
  ...RESULT_HEADER,
  valueQuantity: T.Optional(QuantitySchema),
  valueString: T.Optional(T.String()),
  interpretation: T.Optional(T.Array(CodeableConceptSchema)),
  referenceRange: T.Optional(T.Array(ReferenceRangeSchema)),
});
export type Observation = Static<typeof ObservationSchema>;

export const DiagnosticReportSchema = T.Object({
  resourceType: T.Literal("DiagnosticReport"),
  ...RESULT_HEADER,
  result: T.Array(ReferenceSchema, { description: "The panel's observations, by their `fullUrl`." }),
});
export type DiagnosticReport = Static<typeof DiagnosticReportSchema>;

export const LabBundleSchema = T.Object(
  {
    resourceType: T.Literal("Bundle"),
    type: T.Literal("collection"),
    timestamp: Instant,
    entry: T.Optional(
      T.Array(
        T.Object({
          fullUrl: T.String({ description: "`urn:uuid:…`; a report's is its panel id." }),
          resource: T.Union([DiagnosticReportSchema, ObservationSchema]),
        }),
        {
          minItems: 1,
          description:
            "Oldest panel first: each panel's DiagnosticReport, then its Observations in order. Absent without panels.",
        },
      ),
    ),
  },
  { description: "A FHIR R4 Bundle (https://hl7.org/fhir/R4/bundle.html)." },
);
export type LabBundle = Static<typeof LabBundleSchema>;
