import type { Job } from "bullmq";
import type { Deps } from "../../shared/context/deps";
import type { JobName, JobPayload } from "../../shared/jobs/catalog";
import { chatTurn, chatTurnFailed } from "./chat";
import { indexConditionBatch } from "./conditions";
import { flushKeyUsage } from "./maintenance";
import { indexPaperBatch, reindexPaperRange } from "./papers";
import { openFdaLookup, rxnavLookup } from "./references";
import { transcribeAudio } from "./transcription";
import { expirePendingUploads, processUpload } from "./uploads";

type Processor<N extends JobName> = (deps: Deps, payload: JobPayload<N>, job: Job) => Promise<unknown>;

/** One processor per job in the catalog; a missing entry fails the typecheck. */
export const PROCESSORS: { [N in JobName]: Processor<N> } = {
  "maintenance.flush-key-usage": (deps) => flushKeyUsage(deps),
  "papers.index-batch": (deps, payload) => indexPaperBatch(deps, payload),
  "papers.reindex-range": (deps, payload) => reindexPaperRange(deps, payload),
  "references.rxnav-lookup": (deps, payload) => rxnavLookup(deps, payload),
  "references.openfda-lookup": (deps, payload) => openFdaLookup(deps, payload),
  "conditions.index-batch": (deps, payload) => indexConditionBatch(deps, payload),
  "chat.turn": (deps, payload) => chatTurn(deps, payload),
  "transcription.audio": (deps, payload) => transcribeAudio(deps, payload),
  "uploads.process": (deps, payload) => processUpload(deps, payload),
  "uploads.expire-pending": (deps) => expirePendingUploads(deps),
};

/** Jobs that must leave things consistent when they fail for good (after their last attempt). */
export const ON_FINAL_FAILURE: {
  [N in JobName]?: (deps: Deps, payload: JobPayload<N>, reason: string) => Promise<void>;
} = {
  "chat.turn": (deps, payload, reason) => chatTurnFailed(deps, payload, reason),
};
