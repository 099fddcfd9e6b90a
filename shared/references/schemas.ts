import { type Static, Type as T } from "@sinclair/typebox";

/** Shapes of a medication reference (spec 2.7): stable field names, documented in the README. */

const Concept = T.Object({ rxcui: T.String(), name: T.String(), tty: T.String({ description: "RxNorm term type." }) });

const Source = T.Object({
  name: T.String(),
  url: T.Union([T.String(), T.Null()], { description: "Where a person can read the source record." }),
  retrievedAt: T.String({ format: "date-time", description: "When this answer was fetched from the upstream." }),
  note: T.Optional(T.String()),
});

export const RxnormPartSchema = T.Object({
  found: T.Boolean(),
  matchedBy: T.Union([T.Literal("name"), T.Literal("approximate"), T.Literal("rxcui"), T.Literal("ndc"), T.Null()], {
    description: "How the query was resolved: exact/normalized name, approximate match (misspelling), RxCUI, NDC.",
  }),
  approximateMatch: T.Union([T.Object({ inputTerm: T.String(), score: T.Number() }), T.Null()], {
    description: "Set when the name only matched approximately (e.g. a misspelling).",
  }),
  rxcui: T.Union([T.String(), T.Null()]),
  name: T.Union([T.String(), T.Null()]),
  tty: T.Union([T.String(), T.Null()]),
  ingredients: T.Array(Concept, { description: "Ingredient concepts (IN, PIN, MIN)." }),
  brands: T.Array(Concept, { description: "Brand names (BN)." }),
  products: T.Array(Concept, {
    description: "Clinical and branded drugs and packs (SCD, SBD, GPCK, BPCK); at most 50.",
  }),
  properties: T.Array(T.Object({ category: T.String(), name: T.String(), value: T.String() }), {
    description: "RxNav allProperties (codes such as ATC and attributes).",
  }),
  ndcs: T.Array(T.String(), { description: "Active NDCs of the concept (11-digit); at most 100." }),
  ndcCount: T.Integer(),
  source: Source,
});
export type RxnormPart = Static<typeof RxnormPartSchema>;

/** openFDA label sections we return, in label order; text paragraphs joined with blank lines. */
export const LABEL_SECTIONS = [
  "boxed_warning",
  "indications_and_usage",
  "dosage_and_administration",
  "dosage_forms_and_strengths",
  "contraindications",
  "warnings_and_cautions",
  "warnings",
  "precautions",
  "adverse_reactions",
  "drug_interactions",
  "use_in_specific_populations",
  "pregnancy",
  "overdosage",
  "description",
  "active_ingredient",
  "purpose",
  "do_not_use",
  "stop_use",
  "ask_doctor",
] as const;

export const FdaPartSchema = T.Object({
  found: T.Boolean(),
  matchedBy: T.Union([T.Literal("rxcui"), T.Literal("name"), T.Literal("label-text"), T.Null()], {
    description:
      "rxcui: the label's harmonized openfda.rxcui; name: openfda generic/brand name; label-text: a label without the openfda block, found by its product text.",
  }),
  setId: T.Union([T.String(), T.Null()]),
  labelId: T.Union([T.String(), T.Null()]),
  effectiveTime: T.Union([T.String({ description: "YYYY-MM-DD" }), T.Null()]),
  harmonized: T.Boolean({ description: "Whether the label carried openFDA's harmonized `openfda` block." }),
  brandNames: T.Array(T.String()),
  genericNames: T.Array(T.String()),
  manufacturers: T.Array(T.String()),
  routes: T.Array(T.String()),
  rxcuis: T.Array(T.String()),
  sections: T.Record(T.String(), T.String(), {
    description: `Label sections by openFDA field name (${LABEL_SECTIONS.join(", ")}), as printed on the label.`,
  }),
  source: Source,
});
export type FdaPart = Static<typeof FdaPartSchema>;

export const CacheStateSchema = T.Object({
  state: T.Union([T.Literal("live"), T.Literal("fresh"), T.Literal("stale")], {
    description:
      "live: fetched for this request; fresh: from the cache within its TTL; stale: the upstream failed, an older cached answer is served.",
  }),
  fetchedAt: T.String({ format: "date-time" }),
});

export const MEDICATION_DISCLAIMER =
  "Labeling reference from RxNorm (NLM) and FDA drug labels (openFDA), not medical advice and not a drug-interaction assessment.";

export const MedicationReferenceSchema = T.Object({
  query: T.Object({
    input: T.String(),
    by: T.Union([T.Literal("name"), T.Literal("rxcui"), T.Literal("ndc")]),
    value: T.String({ description: "The normalized value looked up." }),
  }),
  rxnorm: RxnormPartSchema,
  fda: FdaPartSchema,
  cache: T.Object({ rxnorm: CacheStateSchema, fda: CacheStateSchema }),
  disclaimer: T.String(),
});
export type MedicationReference = Static<typeof MedicationReferenceSchema>;
