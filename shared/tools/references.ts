import { Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { lookupMedication } from "../references/medication";
import { LABEL_SECTIONS, MedicationReferenceSchema } from "../references/schemas";
import { READ_ONLY_OPEN } from "./annotations";
import { defineTool } from "./types";

/**
 * Medication tools: one lookup verb (GET /api/v1/health/medication, cached, queued on a miss), the
 * full reference or a narrower view of it. Open world: answers come from RxNorm and openFDA.
 */
const MedicationInput = T.Object(
  { name: Text({ minLength: 1, maxLength: 120, pattern: "\\S", description: "Name, RxCUI or NDC." }) },
  { additionalProperties: false },
);

export const getMedicationReferenceTool = defineTool({
  name: "get_medication_reference",
  title: "Medication labeling reference",
  description:
    "RxNorm concept (ingredients, brands, products, codes, NDCs) and the newest FDA label sections (boxed warning, indications, dosage, contraindications, warnings, adverse reactions, drug interactions) for a medication name, RxCUI or NDC. Labeling reference, not an interaction assessment.",
  input: MedicationInput,
  output: MedicationReferenceSchema,
  annotations: READ_ONLY_OPEN,
  scope: "papers:read",
  feature: "health",
  run: (ctx, input) => lookupMedication(ctx, input),
  render: (ref) => {
    const rx = ref.rxnorm.found ? `${ref.rxnorm.name} (RxCUI ${ref.rxnorm.rxcui}, ${ref.rxnorm.tty})` : "not in RxNorm";
    const label = ref.fda.found
      ? `FDA label ${ref.fda.setId} (${ref.fda.effectiveTime}); sections: ${Object.keys(ref.fda.sections).join(", ")}`
      : "no FDA label found";
    return `${rx}; ${label}. ${ref.disclaimer}`;
  },
});

const SectionName = T.Union(LABEL_SECTIONS.map((section) => T.Literal(section)));
const Nullable = <S extends ReturnType<typeof T.String>>(schema: S) => T.Union([schema, T.Null()]);

export const getMedicationLabelSectionsTool = defineTool({
  name: "get_medication_label_sections",
  title: "FDA label sections of a medication",
  description: `The text of the newest FDA label's sections for a medication name, RxCUI or NDC; all sections, or only those asked for (${LABEL_SECTIONS.join(", ")}). Labeling reference, not medical advice.`,
  input: T.Object(
    {
      name: MedicationInput.properties.name,
      sections: T.Optional(T.Array(SectionName, { minItems: 1, maxItems: LABEL_SECTIONS.length, uniqueItems: true })),
    },
    { additionalProperties: false },
  ),
  output: T.Object({
    query: T.String(),
    found: T.Boolean(),
    setId: Nullable(T.String()),
    effectiveTime: Nullable(T.String()),
    brandNames: T.Array(T.String()),
    genericNames: T.Array(T.String()),
    sections: T.Record(T.String(), T.String()),
    missingSections: T.Array(T.String(), { description: "Asked-for sections this label does not have." }),
    disclaimer: T.String(),
  }),
  annotations: READ_ONLY_OPEN,
  scope: "papers:read",
  feature: "health",
  run: async (ctx, input) => {
    const { fda, disclaimer } = await lookupMedication(ctx, input);
    const wanted: string[] = input.sections ?? Object.keys(fda.sections);
    return {
      query: input.name,
      found: fda.found,
      setId: fda.setId,
      effectiveTime: fda.effectiveTime,
      brandNames: fda.brandNames,
      genericNames: fda.genericNames,
      sections: Object.fromEntries(wanted.flatMap((key) => (fda.sections[key] ? [[key, fda.sections[key]]] : []))),
      missingSections: wanted.filter((key) => !fda.sections[key]),
      disclaimer,
    };
  },
  render: (r) =>
    r.found
      ? Object.entries(r.sections)
          .map(([key, text]) => `## ${key}\n${text}`)
          .join("\n\n") || "The label has none of these sections."
      : "No FDA label found.",
});

export const getMedicationNdcsTool = defineTool({
  name: "get_medication_ndcs",
  title: "NDCs of a medication",
  description:
    "The active National Drug Codes (11-digit, at most 100) of the RxNorm concept a medication name, RxCUI or NDC resolves to, with the concept and its products.",
  input: MedicationInput,
  output: T.Object({
    query: T.String(),
    found: T.Boolean(),
    rxcui: Nullable(T.String()),
    name: Nullable(T.String()),
    ndcs: T.Array(T.String()),
    ndcCount: T.Integer(),
    products: T.Array(T.Object({ rxcui: T.String(), name: T.String(), tty: T.String() })),
  }),
  annotations: READ_ONLY_OPEN,
  scope: "papers:read",
  feature: "health",
  run: async (ctx, input) => {
    const { rxnorm } = await lookupMedication(ctx, input);
    return {
      query: input.name,
      found: rxnorm.found,
      rxcui: rxnorm.rxcui,
      name: rxnorm.name,
      ndcs: rxnorm.ndcs,
      ndcCount: rxnorm.ndcCount,
      products: rxnorm.products.map(({ rxcui, name, tty }) => ({ rxcui, name, tty })),
    };
  },
  render: (r) =>
    r.found ? `${r.name} (RxCUI ${r.rxcui}): ${r.ndcCount} NDCs: ${r.ndcs.slice(0, 20).join(", ")}` : "Not in RxNorm.",
});
