import type { Env } from "../core/env";
import { AppError } from "../core/errors";
import type { Provider } from "../jobs/payloads/transcription";
import { transcribeWithAddis } from "./addis";
import { transcribeWithElevenLabs } from "./elevenlabs";
import type { Transcript } from "./schemas";

export const PROVIDER_NAMES: Record<Provider, string> = { addis: "Addis AI", elevenlabs: "ElevenLabs" };

const KEY_SETTING: Record<Provider, "ADDIS_API_KEY" | "ELEVENLABS_API_KEY"> = {
  addis: "ADDIS_API_KEY",
  elevenlabs: "ELEVENLABS_API_KEY",
};

/** The provider's key, or 503 naming the missing setting (the deployment, not the caller, must act). */
export function providerKey(env: Env, provider: Provider): string {
  const setting = KEY_SETTING[provider];
  const key = env[setting];
  if (!key) {
    throw new AppError(
      "UNAVAILABLE",
      `${PROVIDER_NAMES[provider]} speech-to-text is not configured on this server: ${setting} is not set.`,
      { headers: { "Retry-After": "3600" } },
    );
  }
  return key;
}

export interface AudioInput {
  bytes: Uint8Array;
  contentType: string;
  extension: string;
  language?: string;
}

/** Sends the audio to one provider; transient failures throw `UpstreamError` (retried), others `UnrecoverableError`. */
export function transcribeWith(env: Env, provider: Provider, audio: AudioInput): Promise<Transcript> {
  const apiKey = providerKey(env, provider);
  const timeoutMs = env.TRANSCRIPTION_TIMEOUT_MS;
  return provider === "addis"
    ? transcribeWithAddis({ baseUrl: env.ADDIS_BASE_URL, apiKey, timeoutMs }, audio)
    : transcribeWithElevenLabs(
        { baseUrl: env.ELEVENLABS_BASE_URL, apiKey, timeoutMs, model: env.ELEVENLABS_STT_MODEL },
        audio,
      );
}
