import type { Job } from "bullmq";
import { keyUsage } from "../shared/auth/keyUsage";
import { sweepOAuthRecords } from "../shared/auth/oauth/sweep";
import { failChatTurn, runChatTurn } from "../shared/chat/turn/run";
import { contextFor, type SystemCtx } from "../shared/context/ctx";
import type { Deps } from "../shared/context/deps";
import { runRecordImport } from "../shared/healthRecords/imports";
import { indexConditions } from "../shared/indexing/conditions";
import { indexPaperBatch, reindexRange } from "../shared/indexing/papers";
import type { JobName, JobPayload } from "../shared/jobs/catalog";
import { runLabImport } from "../shared/labs/imports";
import { openFdaLookup, rxnavLookup } from "../shared/references/lookups";
import { sendToProvider } from "../shared/transcription/sendToProvider";
import { expirePendingUploads, processUpload } from "../shared/uploads/processing";

type Processor<N extends JobName> = (ctx: SystemCtx, payload: JobPayload<N>) => Promise<unknown>;

/** One shared verb per job in the catalog; a missing entry fails the typecheck. */
const PROCESSORS: { [N in JobName]: Processor<N> } = {
  "maintenance.flush-key-usage": (ctx) => keyUsage(ctx),
  "papers.index-batch": indexPaperBatch,
  "papers.reindex-range": reindexRange,
  "references.rxnav-lookup": rxnavLookup,
  "references.openfda-lookup": openFdaLookup,
  "conditions.index-batch": indexConditions,
  "chat.turn": runChatTurn,
  "transcription.audio": sendToProvider,
  "uploads.process": processUpload,
  "labs.import-report": runLabImport,
  "health.import-record": runRecordImport,
  "uploads.expire-pending": (ctx) => expirePendingUploads(ctx),
  "maintenance.sweep-oauth": (ctx) => sweepOAuthRecords(ctx),
};

/** Jobs that must leave things consistent when they fail for good (after their last attempt). */
const ON_FINAL_FAILURE: { [N in JobName]?: (ctx: SystemCtx, payload: JobPayload<N>, reason: string) => Promise<void> } =
  {
    // An exception, or a worker that died and stalled the turn: the client gets an error and an end.
    "chat.turn": failChatTurn,
  };

/** The job's context: the same `contextFor` as a request's, with the job's id as the request id. */
function jobContext(deps: Deps, job: Job): SystemCtx {
  return contextFor(deps, `job_${job.id ?? job.name}`);
}

/** Runs a job (its payload already checked against the catalog) through its verb. */
export function processJob<N extends JobName>(deps: Deps, job: Job, name: N): Promise<unknown> {
  return (PROCESSORS[name] as Processor<N>)(jobContext(deps, job), job.data as JobPayload<N>);
}

/** The clean-up of a job that failed for good, if it has one. */
export function finalFailure<N extends JobName>(
  deps: Deps,
  job: Job,
  name: N,
  reason: string,
): Promise<void> | undefined {
  const cleanUp = ON_FINAL_FAILURE[name] as
    | ((ctx: SystemCtx, payload: JobPayload<N>, reason: string) => Promise<void>)
    | undefined;
  return cleanUp?.(jobContext(deps, job), job.data as JobPayload<N>, reason);
}
