import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import type { JobsOptions } from "bullmq";

/**
 * Every background job, declared once: its queue, payload schema and options. Producers validate
 * payloads before enqueueing, processors re-parse them, and the processor map in `workers/` is typed
 * by these names, so a job without a processor fails the typecheck. Payloads never carry secrets.
 */
interface JobSpec<S extends TSchema> {
  queue: QueueName;
  payload: S;
  options: JobsOptions;
  /** Repeatable jobs: how often the scheduler enqueues one. */
  everyMs?: number;
}

export const QUEUES = ["maintenance"] as const;
export type QueueName = (typeof QUEUES)[number];

const keepHistory = { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } } satisfies JobsOptions;

export const JOBS = {
  /** Copies API-key last-used times from Redis to PostgreSQL, so requests never write PostgreSQL for it. */
  "maintenance.flush-key-usage": {
    queue: "maintenance",
    payload: T.Object({}, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 1000 }, ...keepHistory },
    everyMs: 60_000,
  },
} as const satisfies Record<string, JobSpec<TSchema>>;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = Static<(typeof JOBS)[N]["payload"]>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOBS, name);
}
