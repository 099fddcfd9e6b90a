import { Value } from "@sinclair/typebox/value";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { Deps } from "../shared/context/deps";
import { redisTarget } from "../shared/core/env";
import { AppError } from "../shared/core/errors";
import { createRedis, queuePrefix, type Redis } from "../shared/core/redis";
import {
  isJobName,
  JOBS,
  QUEUE_CONCURRENCY,
  QUEUE_FETCH_BATCH,
  QUEUE_LIMITERS,
  QUEUE_WORKER_OPTIONS,
  type QueueName,
  selectQueues,
  workerSlots,
} from "../shared/jobs/catalog";
import { scheduleRepeatableJobs } from "../shared/jobs/queue";
import { createJobMetricsRecorder } from "../shared/metrics/jobs";
import "../shared/core/formats";
import { finalFailure, processJob } from "./processors";

/** Queues whose jobs wait for other jobs (a chat turn for its reference lookups): closed first on shutdown. */
const WAITS_ON_OTHER_JOBS = new Set<string>(["chat"]);

export interface Workers {
  /** The queues this process works on. */
  queues: readonly QueueName[];
  close(): Promise<void>;
}

/**
 * Starts one BullMQ worker per queue (`options.queues`, else `WORKER_QUEUES`, else all). Each job is re-validated against the catalog; a client
 * error (bad payload, AppError below 500) is an UnrecoverableError so BullMQ does not retry it.
 */
export async function startWorkers(
  deps: Deps,
  options: { concurrency?: number; queues?: readonly QueueName[] } = {},
): Promise<Workers> {
  // Blocking commands need their own connection with maxRetriesPerRequest: null.
  const connection: Redis = createRedis(redisTarget(deps.env), "worker");
  const log = deps.log.child({ component: "workers" });
  // Job durations for /metrics, added up in Redis so any API process can expose them (jobMetrics.ts).
  const jobMetrics = createJobMetricsRecorder(deps.redis, deps.env.REDIS_PREFIX);
  const process = async (job: Job) => {
    if (!isJobName(job.name)) throw new UnrecoverableError(`No processor for job ${job.name}`);
    const spec = JOBS[job.name];
    if (!Value.Check(spec.payload, job.data)) throw new UnrecoverableError(`Invalid payload for ${job.name}`);
    try {
      return await processJob(deps, job, job.name);
    } catch (error) {
      if (error instanceof AppError && error.status < 500) throw new UnrecoverableError(error.message);
      throw error;
    }
  };
  const queues = options.queues ?? selectQueues(deps.env.WORKER_QUEUES);
  // A queue's slots may be split over several BullMQ Workers, so none fetches a whole burst before
  // starting any of it (QUEUE_FETCH_BATCH).
  const workers = queues.flatMap((queue) => {
    const limiter = QUEUE_LIMITERS[queue];
    const concurrency = options.concurrency ?? deps.env.WORKER_CONCURRENCY ?? QUEUE_CONCURRENCY[queue];
    return workerSlots(concurrency, QUEUE_FETCH_BATCH[queue]).map(
      (slots) =>
        new Worker(queue, jobMetrics.time(process), {
          connection,
          prefix: queuePrefix(deps.env.REDIS_PREFIX, queue),
          concurrency: slots,
          ...(limiter ? { limiter } : {}),
          ...QUEUE_WORKER_OPTIONS[queue],
        }),
    );
  });
  for (const worker of workers) {
    worker.on("failed", (job, error) => {
      log.warn("job failed", { job: job?.name, jobId: job?.id, attempts: job?.attemptsMade, error });
      if (!job || !isJobName(job.name)) return;
      const name = job.name;
      // Only final failures (no attempt left, or stalled beyond the limit) get their job's clean-up.
      void job
        .isFailed()
        .then((final) => (final ? finalFailure(deps, job, name, error.message) : undefined))
        .catch((cause) => log.error("job failure clean-up failed", { job: job.name, jobId: job.id, error: cause }));
    });
    worker.on("error", (error) => log.error("worker error", { error }));
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  await scheduleRepeatableJobs(deps.queues);
  log.info("workers started", { queues });
  return {
    queues,
    async close() {
      // Lets active jobs finish; unfinished ones are picked up again after a restart. A chat turn
      // waits on reference lookups, which are jobs of their own: the lookup queues keep running until
      // the turns have drained, or a lone draining worker would wait on lookups nobody takes.
      const first = workers.filter((worker) => WAITS_ON_OTHER_JOBS.has(worker.name));
      await Promise.all(first.map((worker) => worker.close()));
      await Promise.all(workers.filter((worker) => !first.includes(worker)).map((worker) => worker.close()));
      await jobMetrics.close();
      connection.disconnect();
    },
  };
}
