import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { Text } from "../core/text";
import { LogKindSchema, LogStatusSchema } from "../health/schemas";
import { LabFlagSchema } from "../labs/schemas";

/**
 * Shapes of share links (read-only, time-limited links to the health record for a doctor) and of
 * what a link's page shows. The token is never part of a stored or listed shape: it exists only in
 * the create answer's `url`.
 */
const Timestamp = T.String({ format: "date-time" });
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

export const SHARE_LIMITS = {
  label: 80,
  defaultDays: 7,
  maxDays: 30,
  /** Links that are neither expired nor revoked, per account: a 21st is 409 until one is revoked or expires. */
  openLinks: 20,
  /** User agents are kept up to this many characters in the audit (the table's own bound). */
  userAgent: 300,
} as const;

export const ShareLinkInputSchema = T.Object(
  {
    label: T.Optional(
      Text({
        minLength: 1,
        maxLength: SHARE_LIMITS.label,
        pattern: "\\S",
        description:
          "For you, to tell links apart (the doctor's name, say); 1–80 characters, trimmed. Not shown on the shared page.",
      }),
    ),
    expiresInDays: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: SHARE_LIMITS.maxDays,
        default: SHARE_LIMITS.defaultDays,
        description: "Days until the link stops working: 1–30, default 7.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ShareLinkInput = Static<typeof ShareLinkInputSchema>;

export const ShareLinkStatusSchema = T.Union([T.Literal("active"), T.Literal("expired"), T.Literal("revoked")], {
  description: "`revoked` once revoked (even if it has also expired since), else `expired` past `expiresAt`.",
});

export const ShareLinkSchema = T.Object({
  id: T.String({ format: "uuid" }),
  label: Nullable(T.String()),
  status: ShareLinkStatusSchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  revokedAt: Nullable(Timestamp),
  opens: T.Integer({ description: "How many times the page or the FHIR download was opened." }),
  lastOpenedAt: Nullable(Timestamp),
});
export type ShareLink = Static<typeof ShareLinkSchema>;

export const CreatedShareLinkSchema = T.Object({
  ...ShareLinkSchema.properties,
  url: T.String({
    description:
      "`<PUBLIC_URL>/share/<token>`: the link to give the doctor. Shown only in this answer; only the token's SHA-256 is stored.",
  }),
  revokedAt: T.Null(),
  opens: T.Literal(0),
  lastOpenedAt: T.Null(),
});
export type CreatedShareLink = Static<typeof CreatedShareLinkSchema>;

export const ShareLinkListSchema = T.Object({
  links: T.Array(ShareLinkSchema, { description: "Newest first, expired and revoked ones included." }),
});
export type ShareLinkList = Static<typeof ShareLinkListSchema>;

export const RevokedShareLinkSchema = T.Object({ revoked: T.Literal(true) });
export type RevokedShareLink = Static<typeof RevokedShareLinkSchema>;

/** One value of a lab test, in the unit shown beside it. */
const LabValueSchema = T.Object({
  collectedAt: Timestamp,
  value: Nullable(T.Number()),
  valueText: T.String({ description: "The value as the report gave it (a number converted to `unit`, or text)." }),
  unit: Nullable(T.String()),
  flag: Nullable(LabFlagSchema),
});

export const LabTrendSchema = T.Object({
  name: T.String(),
  code: Nullable(T.String({ description: "LOINC, when known." })),
  latest: LabValueSchema,
  previous: T.Array(LabValueSchema, { description: "The results before the latest, newest first (at most 5)." }),
  direction: T.Union([T.Literal("up"), T.Literal("down"), T.Literal("steady"), T.Null()], {
    description: "The latest value against the one before, in the same unit; null when either is not a number.",
  }),
  series: T.Array(T.Number(), {
    description: "Numeric values in the latest value's unit, oldest first (at most 12), for a sparkline.",
  }),
});
export type LabTrend = Static<typeof LabTrendSchema>;

export const LogDigestSchema = T.Object({
  title: T.String(),
  kind: LogKindSchema,
  status: LogStatusSchema,
  entries: T.Integer(),
  firstRecordedAt: Nullable(Timestamp),
  lastRecordedAt: Nullable(Timestamp),
  severity: T.Object({
    min: Nullable(T.Number()),
    max: Nullable(T.Number()),
    trend: T.Union([T.Literal("rising"), T.Literal("falling"), T.Literal("steady"), T.Null()], {
      description: "From the daily average severity's slope (±0.1 points a day); null with fewer than two days.",
    }),
  }),
  temperature: T.Object({
    unit: T.Union([T.Literal("C"), T.Literal("F")]),
    min: Nullable(T.Number()),
    max: Nullable(T.Number()),
  }),
  symptoms: T.Array(T.Object({ symptom: T.String(), count: T.Integer() }), {
    description: "The most frequent symptoms (at most 5).",
  }),
});
export type LogDigest = Static<typeof LogDigestSchema>;

/** What a share link's page shows: the record without any account identifier. */
export const SharedRecordSchema = T.Object({
  patient: T.Object(
    { name: Nullable(T.String()), birthDate: Nullable(T.String()) },
    { description: "As the newest imported record that names the patient names them (the FHIR download's Patient)." },
  ),
  expiresAt: Timestamp,
  generatedAt: Timestamp,
  conditions: T.Array(
    T.Object({
      name: T.String(),
      source: T.Union([T.Literal("typed"), T.Literal("imported")]),
      onset: Nullable(T.String()),
    }),
  ),
  medications: T.Array(
    T.Object({
      name: T.String(),
      source: T.Union([T.Literal("typed"), T.Literal("imported")]),
      status: Nullable(T.String()),
    }),
  ),
  allergies: T.Array(
    T.Object({ substance: T.String(), reactions: T.Array(T.String()), criticality: Nullable(T.String()) }),
  ),
  immunizations: T.Array(T.Object({ vaccine: T.String(), latestDate: Nullable(T.String()), doses: T.Integer() }), {
    description: "One per vaccine: its latest dose, and how many doses are recorded.",
  }),
  labs: T.Array(LabTrendSchema, { description: "Tests with the most recent results first (at most 24)." }),
  logs: T.Array(LogDigestSchema, { description: "The newest symptom logs (at most 12)." }),
  more: T.Object({
    labs: T.Integer({ description: "Further tests not listed." }),
    logs: T.Boolean({ description: "Whether there are older logs than those listed." }),
  }),
});
export type SharedRecord = Static<typeof SharedRecordSchema>;

export type ShareView = "page" | "fhir";

/** Who opened a link, for the audit: the client address as the throttles see it, and the user agent. */
export interface ShareVisit {
  token: string;
  view: ShareView;
  client: string;
  userAgent: string | null;
}
