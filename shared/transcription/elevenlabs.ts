import { UpstreamError } from "../core/upstream";
import type { AudioInput } from "./providers";
import type { Transcript } from "./schemas";
import { postForm } from "./upstream";

/**
 * ElevenLabs speech to text, `POST /v1/speech-to-text` (https://elevenlabs.io/docs/api-reference/speech-to-text/convert):
 * multipart `file` + `model_id` (+ `language_code`), key in `xi-api-key`. The answer is
 * `{language_code, language_probability, text, words: [{text, start, end, type, …}]}`.
 */
interface ElevenLabsAnswer {
  language_code?: string | null;
  text?: string;
  words?: { end?: number | null }[];
}

export interface ElevenLabsConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export async function transcribeWithElevenLabs(config: ElevenLabsConfig, audio: AudioInput): Promise<Transcript> {
  const form = new FormData();
  form.append("model_id", config.model);
  form.append("file", new Blob([audio.bytes], { type: audio.contentType }), `audio.${audio.extension}`);
  if (audio.language) form.append("language_code", audio.language);
  // "(laughter)"-style event tags would end up in the chat message the transcript becomes.
  form.append("tag_audio_events", "false");
  const answer = await postForm<ElevenLabsAnswer>(
    {
      name: "ElevenLabs",
      url: `${config.baseUrl.replace(/\/$/, "")}/v1/speech-to-text`,
      headers: { "xi-api-key": config.apiKey },
      timeoutMs: config.timeoutMs,
    },
    form,
  );
  if (typeof answer.text !== "string") throw new UpstreamError("ElevenLabs", "answered without a transcript");
  const ends = (answer.words ?? []).map((w) => w.end).filter((end): end is number => typeof end === "number");
  return {
    text: answer.text.trim(),
    ...(answer.language_code ? { language: answer.language_code } : {}),
    ...(ends.length > 0 ? { durationSeconds: Math.max(...ends) } : {}),
  };
}
