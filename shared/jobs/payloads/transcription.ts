import { type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../../core/text";

export const ProviderSchema = T.Union([T.Literal("addis"), T.Literal("elevenlabs")], {
  description: "`addis` (Addis AI: Amharic, Afan Oromo) or `elevenlabs` (ElevenLabs Scribe: 90+ languages).",
});
export type Provider = Static<typeof ProviderSchema>;

/** A language code: ISO 639-1 (`am`, `en`) or ISO 639-3 (`amh`, `eng`). */
export const LanguageCodeSchema = T.String({ pattern: "^[a-z]{2,3}$" });

/**
 * What a transcription job carries: where the audio waits in Redis and how to describe it to the
 * provider. Never the bytes themselves (job data is copied into every event and retry) and never a key.
 */
export const TranscriptionJobSchema = T.Object(
  {
    audioId: T.String({ pattern: "^[A-Za-z0-9_-]{8,64}$" }),
    provider: ProviderSchema,
    contentType: Text({ minLength: 1, maxLength: 64 }),
    extension: T.String({ pattern: "^[a-z0-9]{2,5}$" }),
    language: T.Optional(LanguageCodeSchema),
  },
  { additionalProperties: false },
);
export type TranscriptionJob = Static<typeof TranscriptionJobSchema>;
