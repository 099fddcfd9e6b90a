import { UnrecoverableError } from "bullmq";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import type { TranscriptionJob } from "../../shared/jobs/payloads/transcription";
import { transcribeWith } from "../../shared/transcription/providers";
import type { Transcript } from "../../shared/transcription/schemas";
import { audioKey, loadAudio } from "../../shared/transcription/store";

/**
 * Sends the parked audio to the provider and returns the transcript to the waiting request.
 * Transient provider failures throw and are retried with backoff; audio that is gone (the request
 * gave up and deleted it) or a provider this worker has no key for cannot succeed on a retry.
 */
export async function transcribeAudio(deps: Deps, job: TranscriptionJob): Promise<Transcript> {
  const bytes = await loadAudio(deps.redis, audioKey(deps.env.REDIS_PREFIX, job.audioId));
  if (!bytes) throw new UnrecoverableError("The audio is gone: the request stopped waiting for it.");
  try {
    return await transcribeWith(deps.env, job.provider, {
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
