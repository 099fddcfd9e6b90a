import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import { LanguageCodeSchema, ProviderSchema } from "../../shared/jobs/payloads/transcription";
import { AUDIO_MAX_BYTES, AUDIO_TYPES } from "../../shared/transcription/audio";
import { readMultipart } from "../../shared/transcription/form";
import { TranscriptionResponseSchema } from "../../shared/transcription/schemas";
import { transcribe } from "../../shared/transcription/transcribe";
import { failures } from "../openapi/declare";
import { ctxOf } from "../requestState";
import { type Mount, V1 } from "./mount";

const TranscribeForm = t.Object(
  {
    audio: t.File({ description: `The recording: at most ${AUDIO_MAX_BYTES} bytes (25 MiB).` }),
    provider: ProviderSchema,
    language: t.Optional({
      ...LanguageCodeSchema,
      description:
        "Optional. Addis AI: `am` (default) or `om`. ElevenLabs: a hint (ISO 639-1 or 639-3); unset → detected.",
    }),
  },
  { additionalProperties: false },
);

const refusals = new WeakMap<Request, AppError>();

/** Speech to text for the health chat: the returned text is then sent to the chat as `message`. */
export function transcribeRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/transcribe${mount.suffix}` }).post(
    `${mount.base}/transcribe`,
    ({ request, body }) =>
      transcribe(ctxOf(deps, request), {
        audio: body.audio,
        audioType: body.audio.type,
        provider: body.provider,
        ...(body.language ? { language: body.language } : {}),
      }),
    {
      parse: [
        // Our own multipart reading: the audio's declared type must come from its part header.
        // Elysia wraps anything a parser throws as a generic parse error, so a refusal is kept for `transform`.
        async ({ request }) => {
          try {
            return await readMultipart(request);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            refusals.set(request, error);
            return {};
          }
        },
        // Never reached (the parser above always answers); it tells the OpenAPI document the body is multipart.
        "formdata",
      ],
      // Runs before validation, so a 413/415 is not hidden behind "audio is missing".
      transform: ({ request }) => {
        const refusal = refusals.get(request);
        if (refusal) throw refusal;
      },
      body: TranscribeForm,
      response: TranscriptionResponseSchema,
      detail: failures(
        {
          tags: mount.tags("Health chat"),
          summary: "Transcribe a voice note (then send the text as the chat message)",
          description: `Multipart form: \`audio\` (file) and \`provider\` (\`addis\` | \`elevenlabs\`), optional \`language\`. Audio types: ${Object.keys(AUDIO_TYPES).join(", ")} (declared in the part's Content-Type and checked against the file's first bytes: 415 otherwise); larger than 25 MiB → 413. Runs on a worker. A provider without its key → 503 naming the setting; a provider failure (after retries) → 502.`,
        },
        "UNSUPPORTED_MEDIA_TYPE",
        "BAD_REQUEST",
        "UPSTREAM_FAILED",
      ),
    },
  );
}
