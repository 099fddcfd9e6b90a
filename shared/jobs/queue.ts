import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Queue } from "bullmq";
import { AppError } from "../core/errors";
import { queuePrefix, type Redis } from "../core/redis";
import { awaitReplica } from "../core/redisState";
import { JOBS, type JobName, type JobPayload, QUEUES, type QueueName } from "./catalog";
import "../core/formats";

export type Queues = Record<QueueName, Queue>;

/** The connection each set of queues produces on (for WAIT, which must go where the add went). */
const producers = new WeakMap<Queues, Redis>();

/** One BullMQ `Queue` per queue name, sharing one producer connection, each under its own hash tag. */
export function createQueues(connection: Redis, prefix: string): Queues {
  const queues = Object.fromEntries(
    QUEUES.map((name) => [name, new Queue(name, { connection, prefix: queuePrefix(prefix, name) })]),
  ) as Queues;
  producers.set(queues, connection);
  return queues;
}

export function producerOf(queues: Queues): Redis {
  return producers.get(queues) as Redis;
}

/**
 * Each job's payload check, compiled once per process on first use: `Value.Check` interprets the
 * schema on every call, and a chat turn's enqueue is on the request path.
 */
const payloadChecks = new Map<JobName, TypeCheck<TSchema>>();
export function payloadCheck(name: JobName): TypeCheck<TSchema> {
  let check = payloadChecks.get(name);
  if (!check) {
    check = TypeCompiler.Compile(JOBS[name].payload as TSchema);
    payloadChecks.set(name, check);
  }
  return check;
}

/** Validates the payload against the catalog and enqueues it with the catalog's options. */
export async function enqueue<N extends JobName>(
  queues: Queues,
  name: N,
  payload: JobPayload<N>,
  options: { jobId?: string; deduplicationId?: string } = {},
) {
  const spec = JOBS[name];
  const check = payloadCheck(name);
  if (!check.Check(payload)) {
    const first = check.Errors(payload).First();
    throw new AppError("INTERNAL", `Invalid payload for job ${name}: ${first?.path} ${first?.message}`);
  }
  if (options.jobId?.includes(":")) throw new AppError("INTERNAL", "BullMQ job ids must not contain ':'");
  const queue = queues[spec.queue];
  const job = await queue.add(name, payload, {
    ...spec.options,
    ...(options.jobId ? { jobId: options.jobId } : {}),
    // While a job with this id waits or runs, adding another returns that job instead.
    ...(options.deduplicationId ? { deduplication: { id: options.deduplicationId } } : {}),
  });
  // On a cluster, a job is acknowledged once a replica holds it too: a failover then loses none.
  await awaitReplica(producerOf(queues), queue.toKey("meta"));
  return job;
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
