import { Type as T } from "@sinclair/typebox";
import type { Ctx } from "../../shared/context/ctx";
import { AppError, isExposed } from "../../shared/core/errors";
import { Text } from "../../shared/core/text";
import { lookupMedication } from "../../shared/references/medication";
import { MEDICATION_DISCLAIMER, type MedicationReference } from "../../shared/references/schemas";
import { failureMessage } from "../../shared/tools/run";
import { consentedProfile } from "./healthPrompts";
import { definePrompt, userText } from "./promptKit";

/** The label sections a medication check reads, most pressing first. */
const CHECK_SECTIONS = [
  "boxed_warning",
  "indications_and_usage",
  "contraindications",
  "warnings_and_cautions",
  "warnings",
  "precautions",
  "drug_interactions",
  "do_not_use",
  "ask_doctor",
  "stop_use",
] as const;
/** A label section can run to pages; the rest is one get_medication_label_sections call away. */
const SECTION_CHARS = 4_000;
/** Lookups per prompt (each may wait on RxNav and openFDA the first time). */
const MAX_MEDICATIONS = 10;

function clipped(text: string): string {
  if (text.length <= SECTION_CHARS) return text;
  return `${text.slice(0, SECTION_CHARS)}… [clipped; get_medication_label_sections has the whole section]`;
}

function labelText(name: string, reference: MedicationReference): string {
  const { rxnorm, fda } = reference;
  const concept = rxnorm.found ? `RxNorm: ${rxnorm.name} (RxCUI ${rxnorm.rxcui}).` : "Not found in RxNorm.";
  if (!fda.found) return `## ${name}\n${concept}\nNo FDA label was found.`;
  const sections = CHECK_SECTIONS.flatMap((key) => {
    const text = fda.sections[key];
    return text ? [`### ${key}\n${clipped(text)}`] : [];
  });
  return [`## ${name}`, concept, `FDA label ${fda.setId} (effective ${fda.effectiveTime}).`, ...sections].join("\n");
}

/** One medication's label text; an upstream failure the caller may read is said in its place. */
async function checked(ctx: Ctx, name: string): Promise<string> {
  try {
    return labelText(name, await lookupMedication(ctx, { name }));
  } catch (error) {
    if (!isExposed(error)) throw error;
    return `## ${name}\nThe label could not be read: ${failureMessage(error)}`;
  }
}

export const checkMyMedications = definePrompt({
  name: "check_my_medications",
  title: "Check my medications",
  description: `The FDA label sections (boxed warning, uses, contraindications, warnings, interactions) of your profile's medications, or of one you name, with instructions to check them against your conditions and each other. Labeling reference, not medical advice. Needs consent; at most ${MAX_MEDICATIONS} medications.`,
  scopes: ["health:read", "papers:read"],
  feature: "health",
  args: T.Object(
    {
      medication: T.Optional(
        Text({
          minLength: 1,
          maxLength: 120,
          pattern: "\\S",
          description:
            "One medication to check (name, RxCUI or NDC; completion offers names) against the rest of your profile; default: every medication in your profile.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  messages: async (ctx, args) => {
    const profile = await consentedProfile(ctx, "check_my_medications");
    const names = args.medication === undefined ? profile.medications : [args.medication.trim()];
    if (names.length === 0) {
      throw new AppError(
        "BAD_REQUEST",
        "Your profile lists no medications: add them with save_health_profile, or name one in `medication`.",
      );
    }
    const labels = await Promise.all(names.slice(0, MAX_MEDICATIONS).map((name) => checked(ctx, name)));
    const skipped = names.length > MAX_MEDICATIONS ? ` (the first ${MAX_MEDICATIONS} of ${names.length})` : "";
    return {
      description: `FDA label sections of ${labels.length} medications${skipped}.`,
      messages: [
        userText(
          [
            `Check ${args.medication === undefined ? "my medications" : args.medication} against the FDA labels below${skipped}.`,
            "For each: what it is for; the boxed warning and contraindications that may concern me given my conditions; the interactions its label names with my other medications; the warnings to watch for.",
            "Quote the label for each point and say when a label is missing. End with the questions to ask my pharmacist or doctor.",
            "",
            `My conditions: ${profile.conditions.join(", ") || "none recorded"}.`,
            `All my medications: ${profile.medications.join(", ") || "none recorded"}.`,
            MEDICATION_DISCLAIMER,
          ].join("\n"),
        ),
        ...labels.map(userText),
      ],
    };
  },
});
