import { Type as T } from "@sinclair/typebox";
import { MedicationReferenceSchema } from "../references/schemas";
import { lookupMedication } from "../services/medication";
import { defineTool } from "./types";

export const getMedicationReferenceTool = defineTool({
  name: "get_medication_reference",
  title: "Medication labeling reference",
  description:
    "RxNorm concept (ingredients, brands, products, codes, NDCs) and the newest FDA label sections (boxed warning, indications, dosage, contraindications, warnings, adverse reactions, drug interactions) for a medication name, RxCUI or NDC. Labeling reference, not an interaction assessment.",
  input: T.Object(
    { name: T.String({ minLength: 1, maxLength: 120, pattern: "\\S", description: "Name, RxCUI or NDC." }) },
    { additionalProperties: false },
  ),
  output: MedicationReferenceSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  feature: "health",
  run: (ctx, input) => lookupMedication(ctx.deps, input.name),
  render: (ref) => {
    const rx = ref.rxnorm.found ? `${ref.rxnorm.name} (RxCUI ${ref.rxnorm.rxcui}, ${ref.rxnorm.tty})` : "not in RxNorm";
    const label = ref.fda.found
      ? `FDA label ${ref.fda.setId} (${ref.fda.effectiveTime}); sections: ${Object.keys(ref.fda.sections).join(", ")}`
      : "no FDA label found";
    return `${rx}; ${label}. ${ref.disclaimer}`;
  },
});
