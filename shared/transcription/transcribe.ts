import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import { JOBS } from "../jobs/catalog";
import type { Provider } from "../jobs/payloads/transcription";
import { enqueue } from "../jobs/queue";
import { ADDIS_LANGUAGES } from "./addis";
import { type CheckedAudio, checkAudio } from "./audio";
import { PROVIDER_NAMES, providerKey } from "./providers";
import type { Transcript, TranscriptionResponse } from "./schemas";
import { audioKey, deleteAudio, storeAudio } from "./store";

/** Transcription acts for no account in particular: the audio is parked, transcribed and deleted. */
export type TranscriptionCtx = Pick<SystemCtx, "env" | "redis" | "queues" | "jobEvents" | "log">;

export interface TranscribeInput {
  audio: Blob;
  /** The audio part's own Content-Type header (not one guessed from its file name). */
  audioType: string;
  provider: Provider;
  language?: string;
}

/** The audio outlives the request's wait by this much, so a crashed API process leaves nothing behind for long. */
const AUDIO_TTL_MARGIN_MS = 60_000;

/**
 * Speech to text on a worker: validates the audio, parks it in Redis, queues a
 * `transcription.audio` job, waits for it (bounded by TRANSCRIPTION_WAIT_MS) and always deletes the
 * audio afterwards. A provider without a key is 503; a provider that fails (after retries) is 502.
 */
export async function transcribe(ctx: TranscriptionCtx, input: TranscribeInput): Promise<TranscriptionResponse> {
  const audio = await checkAudio(input.audio, input.audioType);
  checkProvider(ctx, input);
  const audioId = Bun.randomUUIDv7("base64url");
  const key = audioKey(ctx.env.REDIS_PREFIX, audioId);
  await storeAudio(ctx.redis, key, audio.bytes, ctx.env.TRANSCRIPTION_WAIT_MS + AUDIO_TTL_MARGIN_MS).catch(
    unavailable("Redis"),
  );
  try {
    const transcript = await runJob(ctx, input, audio, audioId);
    return { ...transcript, provider: input.provider };
  } finally {
    await deleteAudio(ctx.redis, key).catch((error) =>
      ctx.log.warn("transcription audio not deleted (it expires on its own)", { error }),
    );
  }
}

/** A language the provider cannot transcribe is 400; a provider without its key is 503. */
function checkProvider(ctx: Pick<TranscriptionCtx, "env">, input: TranscribeInput): void {
  if (
    input.provider === "addis" &&
    input.language &&
    !(ADDIS_LANGUAGES as readonly string[]).includes(input.language)
  ) {
    throw new AppError("BAD_REQUEST", `Addis AI transcribes ${ADDIS_LANGUAGES.join(" and ")} only.`);
  }
  providerKey(ctx.env, input.provider);
}

/** Queues the job for the parked audio and waits for its transcript. */
async function runJob(
  ctx: TranscriptionCtx,
  input: TranscribeInput,
  audio: CheckedAudio,
  audioId: string,
): Promise<Transcript> {
  const job = await enqueue(
    ctx.queues,
    "transcription.audio",
    {
      audioId,
      provider: input.provider,
      contentType: audio.contentType,
      extension: audio.extension,
      ...(input.language ? { language: input.language } : {}),
    },
    { jobId: audioId },
  ).catch(unavailable("Redis"));
  return ctx.jobEvents
    .waitFor<Transcript>(JOBS["transcription.audio"].queue, job, ctx.env.TRANSCRIPTION_WAIT_MS)
    .catch((cause) => {
      throw new AppError(
        "UPSTREAM_FAILED",
        `${PROVIDER_NAMES[input.provider]} speech-to-text failed or did not finish in time; retry later.`,
        { cause },
      );
    });
}
