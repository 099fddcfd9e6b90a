import { Type as T } from "@sinclair/typebox";
import { deleteProfile } from "../health/profile";
import { LogKindSchema, ProfileDeletionSchema, ProfileInputSchema } from "../health/schemas";
import { listSymptomOptions, SymptomOptionsSchema } from "../health/symptoms";
import { profileText } from "../healthRecords/profileText";
import { HealthProfileSchema } from "../healthRecords/schemas";
import { getHealthProfile, saveHealthProfile } from "../healthRecords/sections";
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
    "The caller's stored health profile: whether consent is given, the conditions and medications they typed, and what imported health records add: allergies (substance, reactions, criticality), active conditions and medications with their codes, and immunizations with dates. Without consent it is empty (consentGiven false).",
  input: T.Object({}, { additionalProperties: false }),
  output: HealthProfileSchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx) => getHealthProfile(ctx),
  render: (p) => (p.consentGiven ? profileText(p) : "No health profile with consent is stored."),
});

export const saveHealthProfileTool = defineTool({
  name: "save_health_profile",
  title: "Save the health profile (gives consent)",
  description:
    "Replaces the caller's health profile and records consent to store health data (consentGiven must be true). Omitted lists are saved empty. Health logs need this consent.",
  input: ProfileInputSchema,
  output: HealthProfileSchema,
  annotations: WRITE_IDEMPOTENT,
  scope: "health:write",
  feature: "health",
  run: (ctx, input) => saveHealthProfile(ctx, input),
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
