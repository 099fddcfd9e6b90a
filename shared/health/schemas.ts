import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { Text } from "../core/text";

/** Log kinds; each has its own symptom options (provenance in shared/data/symptoms/PROVENANCE.md). */
export const LogKindSchema = T.Union([T.Literal("acute"), T.Literal("pregnancy"), T.Literal("custom")]);
export type LogKind = Static<typeof LogKindSchema>;

/**
 * Shapes of the health profile, health logs and their entries: the request bodies the API and the
 * tools validate and the responses they return. Strings are validated as sent (length, at least one
 * non-space character) and stored trimmed. JSON field names (`trackers`, `trackersDeleted`) follow
 * the REST spec.
 */
const NONBLANK = "\\S";
const Timestamp = T.String({ format: "date-time" });
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

export const PROFILE_LIMITS = { items: 50, itemLength: 200 } as const;
const ProfileItems = (what: string) =>
  T.Array(Text({ minLength: 1, maxLength: PROFILE_LIMITS.itemLength, pattern: NONBLANK }), {
    maxItems: PROFILE_LIMITS.items,
    description: `Up to ${PROFILE_LIMITS.items} ${what}, each 1–${PROFILE_LIMITS.itemLength} characters; trimmed, duplicates (ignoring case) removed. Omitted means none.`,
  });

export const ProfileInputSchema = T.Object(
  {
    consentGiven: T.Literal(true, { description: "Must be true: saving a profile is giving consent." }),
    conditions: T.Optional(ProfileItems("conditions")),
    medications: T.Optional(ProfileItems("medications")),
  },
  { additionalProperties: false },
);
export type ProfileInput = Static<typeof ProfileInputSchema>;

export const ProfileSchema = T.Object({
  consentGiven: T.Boolean(),
  conditions: T.Array(T.String()),
  medications: T.Array(T.String()),
  consentedAt: T.Union([Timestamp, T.Null()], { description: "When consent was first given; null without a profile." }),
  updatedAt: T.Union([Timestamp, T.Null()], { description: "Last save; null without a profile." }),
});
export type Profile = Static<typeof ProfileSchema>;

export const ProfileDeletionSchema = T.Object({
  deleted: T.Literal(true),
  trackersDeleted: T.Integer({ description: "Logs deleted, with all their entries." }),
  labPanelsDeleted: T.Integer({ description: "Lab panels deleted, entered, read from PDFs or imported." }),
  recordImportsDeleted: T.Integer({ description: "Imported health records deleted, with everything read from them." }),
  shareLinksDeleted: T.Integer({ description: "Share links deleted; they stop working at once." }),
});
export type ProfileDeletion = Static<typeof ProfileDeletionSchema>;

export const LogStatusSchema = T.Union([T.Literal("active"), T.Literal("resolved"), T.Literal("archived")]);
export type LogStatus = Static<typeof LogStatusSchema>;

export const ENTRY_LIMITS = { symptoms: 16, symptomLength: 60, note: 1200, entriesKept: 180 } as const;
const TemperatureUnitSchema = T.Union([T.Literal("C"), T.Literal("F")]);
const ActivityImpactSchema = T.Union([T.Literal("normal"), T.Literal("limited"), T.Literal("unable")]);
export type ActivityImpact = Static<typeof ActivityImpactSchema>;

export const EntryInputSchema = T.Object(
  {
    severity: T.Optional(T.Integer({ minimum: 0, maximum: 10 })),
    symptoms: T.Optional(
      T.Array(Text({ minLength: 1, maxLength: ENTRY_LIMITS.symptomLength, pattern: NONBLANK }), {
        maxItems: ENTRY_LIMITS.symptoms,
        description:
          "Up to 16 listed option ids or free-text symptoms, each 1–60 characters; trimmed, duplicates (ignoring case) removed.",
      }),
    ),
    temperature: T.Optional(
      T.Number({
        exclusiveMinimum: 0,
        maximum: 200,
        description: "Positive, stored to one decimal place. Only together with temperatureUnit.",
      }),
    ),
    temperatureUnit: T.Optional(TemperatureUnitSchema),
    activityImpact: T.Optional(ActivityImpactSchema),
    note: T.Optional(Text({ maxLength: ENTRY_LIMITS.note, description: "Up to 1,200 characters; trimmed." })),
  },
  { additionalProperties: false, description: "At least one observation." },
);
export type EntryInput = Static<typeof EntryInputSchema>;

export const EntrySchema = T.Object({
  id: T.String({ format: "uuid" }),
  severity: Nullable(T.Integer()),
  symptoms: T.Array(T.String()),
  temperature: Nullable(T.Number()),
  temperatureUnit: T.Union([TemperatureUnitSchema, T.Null()]),
  activityImpact: T.Union([ActivityImpactSchema, T.Null()]),
  note: Nullable(T.String()),
  recordedAt: Timestamp,
});
export type Entry = Static<typeof EntrySchema>;

export const HealthLogInputSchema = T.Object(
  {
    title: Text({ minLength: 1, maxLength: 80, pattern: NONBLANK, description: "1–80 characters; trimmed." }),
    kind: LogKindSchema,
  },
  { additionalProperties: false },
);
export type HealthLogInput = Static<typeof HealthLogInputSchema>;

export const HealthLogPatchSchema = T.Object(
  {
    title: T.Optional(HealthLogInputSchema.properties.title),
    status: T.Optional(LogStatusSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type HealthLogPatch = Static<typeof HealthLogPatchSchema>;

export const HealthLogSchema = T.Object({
  id: T.String({ format: "uuid" }),
  title: T.String(),
  kind: LogKindSchema,
  status: LogStatusSchema,
  startedAt: Timestamp,
  resolvedAt: T.Union([Timestamp, T.Null()], { description: "Set when the log moves to resolved." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  entryCount: T.Integer({ description: "Entries stored (at most 180)." }),
  entries: T.Array(EntrySchema, { description: "Newest first." }),
});
export type HealthLog = Static<typeof HealthLogSchema>;

/** The JSON export of one log: the log without its entry list, then every entry, oldest first. */
export const HealthLogExportSchema = T.Object({
  exportedAt: Timestamp,
  tracker: T.Omit(HealthLogSchema, ["entries"]),
  entries: T.Array(EntrySchema, { description: "Oldest first." }),
});

export const LOG_PAGE = { defaultLimit: 20, maxLimit: 100, entriesInList: 5 } as const;

export const HealthLogListSchema = T.Object({
  consentGiven: T.Boolean(),
  trackers: T.Array(HealthLogSchema, { description: "Newest log first; each with at most its 5 newest entries." }),
  next_cursor: T.Union([T.String(), T.Null()], {
    description: "Pass as `cursor` for the next page; null on the last.",
  }),
});
export type HealthLogList = Static<typeof HealthLogListSchema>;
