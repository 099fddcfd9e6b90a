import { UnrecoverableError } from "bullmq";
import { UpstreamError } from "../core/upstream";
import type { AudioInput } from "./providers";
import type { Transcript } from "./schemas";
import { postForm } from "./upstream";

/**
 * Addis AI speech to text, `POST /api/v2/stt` (https://docs.addisassistant.com/docs/capabilities/speech-to-text):
 * multipart `audio` + `request_data` (a JSON string `{"language_code": "am"}`), key in `x-api-key`.
 * The answer wraps the result as `{status, data: {transcription, confidence, usage_metadata}}`; it
 * reports neither the language nor timings, so `language` is the one we asked for.
 */
interface AddisAnswer {
  data?: { transcription?: string };
  transcription?: string;
}

/** Addis AI documents Amharic and Afan Oromo for speech to text. */
export const ADDIS_LANGUAGES = ["am", "om"] as const;

export interface AddisConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export async function transcribeWithAddis(config: AddisConfig, audio: AudioInput): Promise<Transcript> {
  const language = audio.language ?? "am";
  if (!(ADDIS_LANGUAGES as readonly string[]).includes(language)) {
    throw new UnrecoverableError(`Addis AI transcribes ${ADDIS_LANGUAGES.join(" and ")} only`);
  }
  const form = new FormData();
  form.append("audio", new Blob([audio.bytes], { type: audio.contentType }), `audio.${audio.extension}`);
  form.append("request_data", JSON.stringify({ language_code: language }));
  const answer = await postForm<AddisAnswer>(
    {
      name: "Addis AI",
      url: `${config.baseUrl.replace(/\/$/, "")}/api/v2/stt`,
      headers: { "x-api-key": config.apiKey },
      timeoutMs: config.timeoutMs,
    },
    form,
  );
  // The SDK accepts the result with or without the `data` envelope; so do we.
  const text = answer.data?.transcription ?? answer.transcription;
  if (typeof text !== "string") throw new UpstreamError("Addis AI", "answered without a transcription");
  return { text: text.trim(), language };
}
