import { type Static, Type as T } from "@sinclair/typebox";
import { ProviderSchema } from "../jobs/payloads/transcription";

/** What a provider client returns and the job hands back to the waiting request. */
export const TranscriptSchema = T.Object(
  {
    text: T.String({ description: "The transcript; send it to the health chat as `message`." }),
    language: T.Optional(
      T.String({
        description:
          "ElevenLabs: the language it detected (ISO 639-3, e.g. `eng`). Addis AI: the language it was asked to transcribe (`am` or `om`).",
      }),
    ),
    durationSeconds: T.Optional(
      T.Number({
        minimum: 0,
        description: "ElevenLabs only: end of the last timed word, in seconds (Addis AI reports no timings).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type Transcript = Static<typeof TranscriptSchema>;

export const TranscriptionResponseSchema = T.Object(
  { ...TranscriptSchema.properties, provider: ProviderSchema },
  { additionalProperties: false },
);
export type TranscriptionResponse = Static<typeof TranscriptionResponseSchema>;
