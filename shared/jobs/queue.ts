import { Value } from "@sinclair/typebox/value";
import { Queue } from "bullmq";
import { AppError } from "../core/errors";
import type { Redis } from "../core/redis";
import { JOBS, type JobName, type JobPayload, QUEUES, type QueueName } from "./catalog";
import "../core/formats";

export type Queues = Record<QueueName, Queue>;

/** One BullMQ `Queue` per queue name, sharing one producer connection and the deployment prefix. */
export function createQueues(connection: Redis, prefix: string): Queues {
  return Object.fromEntries(QUEUES.map((name) => [name, new Queue(name, { connection, prefix })])) as Queues;
}

/** Validates the payload against the catalog and enqueues it with the catalog's options. */
export async function enqueue<N extends JobName>(
  queues: Queues,
  name: N,
  payload: JobPayload<N>,
  options: { jobId?: string; deduplicationId?: string } = {},
) {
  const spec = JOBS[name];
  if (!Value.Check(spec.payload, payload)) {
    const first = Value.Errors(spec.payload, payload).First();
    throw new AppError("INTERNAL", `Invalid payload for job ${name}: ${first?.path} ${first?.message}`);
  }
  if (options.jobId?.includes(":")) throw new AppError("INTERNAL", "BullMQ job ids must not contain ':'");
  return queues[spec.queue].add(name, payload, {
    ...spec.options,
    ...(options.jobId ? { jobId: options.jobId } : {}),
    // While a job with this id waits or runs, adding another returns that job instead.
    ...(options.deduplicationId ? { deduplication: { id: options.deduplicationId } } : {}),
  });
}

/** Registers the repeatable jobs of the catalog (idempotent: schedulers are upserted by name). */
export async function scheduleRepeatableJobs(queues: Queues): Promise<void> {
  for (const [name, spec] of Object.entries(JOBS)) {
    if (!("everyMs" in spec) || !spec.everyMs) continue;
    await queues[spec.queue].upsertJobScheduler(name, { every: spec.everyMs }, { name, data: {}, opts: spec.options });
  }
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()));
}
