import { Type as T } from "@sinclair/typebox";
import { deleteProfile, getProfile, saveProfile } from "../health/profile";
import { LogKindSchema, ProfileDeletionSchema, ProfileInputSchema, ProfileSchema } from "../health/schemas";
import { listSymptomOptions, SymptomOptionsSchema } from "../health/symptoms";
import { DELETE, READ_ONLY, WRITE_IDEMPOTENT } from "./annotations";
import { defineTool } from "./types";

/**
 * Profile and symptom-option tools: the same verbs as /api/v1/health/profile and /symptoms, so
 * consent works the same (no consent → an empty profile; saving one gives consent).
 */
export const getHealthProfileTool = defineTool({
  name: "get_health_profile",
  title: "Read the health profile",
  description:
    "The caller's stored health profile: whether consent is given, conditions and medications. Without consent it is empty (consentGiven false).",
  input: T.Object({}, { additionalProperties: false }),
  output: ProfileSchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx) => getProfile(ctx),
  render: (p) =>
    p.consentGiven
      ? `Conditions: ${p.conditions.join(", ") || "none"}. Medications: ${p.medications.join(", ") || "none"}.`
      : "No health profile with consent is stored.",
});

export const saveHealthProfileTool = defineTool({
  name: "save_health_profile",
  title: "Save the health profile (gives consent)",
  description:
    "Replaces the caller's health profile and records consent to store health data (consentGiven must be true). Omitted lists are saved empty. Health logs need this consent.",
  input: ProfileInputSchema,
  output: ProfileSchema,
  annotations: WRITE_IDEMPOTENT,
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => saveProfile(ctx, input),
  render: (p) => `Saved with consent: ${p.conditions.length} conditions, ${p.medications.length} medications.`,
});

export const deleteHealthProfileTool = defineTool({
  name: "delete_health_profile",
  title: "Delete the health profile and all health logs",
  description:
    'Permanently deletes the profile, every health log with its entries, and lab panels, and withdraws consent. Pass confirm: "delete" only when the user asked for it.',
  input: T.Object(
    { confirm: T.Literal("delete", { description: 'Must be "delete"; nothing is deleted otherwise.' }) },
    { additionalProperties: false },
  ),
  output: ProfileDeletionSchema,
  annotations: DELETE,
  scope: "health:write",
  feature: "health",
  run: (ctx) => deleteProfile(ctx),
  render: (d) => `Deleted the profile and ${d.trackersDeleted} logs; consent withdrawn.`,
});

export const listSymptomOptionsTool = defineTool({
  name: "list_symptom_options",
  title: "Symptom options for a log kind",
  description: "The symptom choices offered for acute, pregnancy or custom logs; urgent marks red-flag symptoms.",
  input: T.Object({ kind: T.Optional(LogKindSchema) }, { additionalProperties: false }),
  output: SymptomOptionsSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  feature: "health",
  run: (ctx, input) => listSymptomOptions(ctx, { kind: input.kind ?? "acute" }),
  render: (o) => o.symptoms.map((s) => `${s.label}${s.urgent ? " (urgent)" : ""}`).join(", "),
});
