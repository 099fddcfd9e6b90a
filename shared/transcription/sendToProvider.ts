import { UnrecoverableError } from "bullmq";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import type { TranscriptionJob } from "../jobs/payloads/transcription";
import { transcribeWith } from "./providers";
import type { Transcript } from "./schemas";
import { audioKey, loadAudio } from "./store";

/**
 * Sends the parked audio to the provider and returns the transcript to the waiting request.
 * Transient provider failures throw and are retried with backoff; audio that is gone (the request
 * gave up and deleted it) or a provider this worker has no key for cannot succeed on a retry.
 */
export async function sendToProvider(
  ctx: Pick<SystemCtx, "redis" | "env">,
  job: TranscriptionJob,
): Promise<Transcript> {
  const bytes = await loadAudio(ctx.redis, audioKey(ctx.env.REDIS_PREFIX, job.audioId));
  if (!bytes) throw new UnrecoverableError("The audio is gone: the request stopped waiting for it.");
  try {
    return await transcribeWith(ctx.env, job.provider, {
      bytes,
      contentType: job.contentType,
      extension: job.extension,
      ...(job.language ? { language: job.language } : {}),
    });
  } catch (error) {
    if (error instanceof AppError) throw new UnrecoverableError(error.message);
    throw error;
  }
}
