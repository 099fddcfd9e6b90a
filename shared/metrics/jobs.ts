import type { Redis } from "../core/redis";
import { QUEUES, type QueueName } from "../jobs/catalog";
import type { Queues } from "../jobs/queue";
import { Gauge, Histogram } from "./registry";

/**
 * Job metrics for a cluster whose workers run in other processes than the API. Queue depths are read
 * from BullMQ when /metrics is scraped. Job durations are measured by the workers and added up in
 * Redis (one hash per queue, histogram buckets as fields), so any API process can expose the
 * cluster-wide histogram without workers opening a port of their own and without Prometheus having
 * to find every worker. Workers batch their increments: one pipelined round trip per second at most.
 */

/** From a 10 ms lookup to a 5-minute transcription; chat turns sit in the seconds. */
export const JOB_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
export const JOB_STATES = ["waiting", "active", "delayed", "failed"] as const;
export type JobOutcome = "completed" | "failed";
const OUTCOMES: readonly JobOutcome[] = ["completed", "failed"];
const FLUSH_EVERY_MS = 1000;

/** One tag for every queue's hash: they are written and read together, in one pipeline. */
export const jobDurationsKey = (prefix: string, queue: string) => `${prefix}:metrics:{jobs}:${queue}`;

interface Pending {
  counts: number[];
  sum: number;
  count: number;
}

export interface JobMetricsRecorder {
  /** Wraps a processor: each attempt's run time is recorded under its queue and outcome. */
  time<J extends { queueName: string }, R>(process: (job: J) => Promise<R>): (job: J) => Promise<R>;
  record(queue: string, outcome: JobOutcome, seconds: number): void;
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. */
  close(): Promise<void>;
}

/** A recorder's counts not yet in Redis, and the write in progress. */
interface RecorderState {
  redis: Redis;
  prefix: string;
  pending: Map<string, Pending>;
  flushing: Promise<void> | undefined;
}

export function createJobMetricsRecorder(redis: Redis, prefix: string): JobMetricsRecorder {
  const state: RecorderState = { redis, prefix, pending: new Map(), flushing: undefined };
  const timer = setInterval(() => void flush(state), FLUSH_EVERY_MS);
  timer.unref();
  return {
    time(process) {
      return (job) => timed(state, process, job);
    },
    record: (queue, outcome, seconds) => record(state, queue, outcome, seconds),
    flush: () => flush(state),
    async close() {
      clearInterval(timer);
      await flush(state);
    },
  };
}

async function timed<J extends { queueName: string }, R>(
  state: RecorderState,
  process: (job: J) => Promise<R>,
  job: J,
): Promise<R> {
  const started = performance.now();
  try {
    const result = await process(job);
    record(state, job.queueName, "completed", (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    record(state, job.queueName, "failed", (performance.now() - started) / 1000);
    throw error;
  }
}

function record(state: RecorderState, queue: string, outcome: JobOutcome, seconds: number): void {
  const field = `${queue}\u0000${outcome}`;
  let entry = state.pending.get(field);
  if (!entry) {
    entry = { counts: new Array(JOB_DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
    state.pending.set(field, entry);
  }
  const i = bucketOf(seconds);
  entry.counts[i] = (entry.counts[i] as number) + 1;
  entry.sum += seconds;
  entry.count += 1;
}

/** Index of the first bucket whose upper bound holds `seconds`; the last index is +Inf. */
function bucketOf(seconds: number): number {
  let i = 0;
  while (i < JOB_DURATION_BUCKETS.length && seconds > (JOB_DURATION_BUCKETS[i] as number)) i++;
  return i;
}

async function flush(state: RecorderState): Promise<void> {
  // One flush at a time, so a slow Redis cannot pile up writes of the same counts.
  while (state.flushing) await state.flushing;
  if (state.pending.size === 0) return;
  const batch = state.pending;
  state.pending = new Map();
  state.flushing = write(state.redis, state.prefix, batch)
    .catch(() => merge(state.pending, batch))
    .finally(() => {
      state.flushing = undefined;
    });
  await state.flushing;
}

async function write(redis: Redis, prefix: string, batch: Map<string, Pending>): Promise<void> {
  const pipeline = redis.pipeline();
  for (const [field, entry] of batch) {
    const [queue, outcome] = field.split("\u0000") as [string, JobOutcome];
    const key = jobDurationsKey(prefix, queue);
    entry.counts.forEach((n, i) => {
      if (n > 0) pipeline.hincrby(key, `${outcome}:${i}`, n);
    });
    pipeline.hincrbyfloat(key, `${outcome}:sum`, entry.sum);
    pipeline.hincrby(key, `${outcome}:count`, entry.count);
  }
  const results = await pipeline.exec();
  const failed = results?.find(([error]) => error);
  if (!results || failed) throw failed?.[0] ?? new Error("Redis pipeline did not run");
}

/** A batch Redis refused goes back into the pending counts, to be written with the next flush. */
function merge(into: Map<string, Pending>, batch: Map<string, Pending>): void {
  for (const [field, entry] of batch) {
    const current = into.get(field);
    if (!current) {
      into.set(field, entry);
      continue;
    }
    entry.counts.forEach((n, i) => {
      current.counts[i] = (current.counts[i] as number) + n;
    });
    current.sum += entry.sum;
    current.count += entry.count;
  }
}

/** The cluster-wide job-duration histogram, read from the hashes the workers write. */
export async function readJobDurations(redis: Redis, prefix: string): Promise<Histogram> {
  const histogram = new Histogram(
    "job_duration_seconds",
    "Run time of job attempts (all worker processes), by queue and outcome (failed: the attempt threw).",
    ["queue", "outcome"],
    JOB_DURATION_BUCKETS,
  );
  const pipeline = redis.pipeline();
  for (const queue of QUEUES) pipeline.hgetall(jobDurationsKey(prefix, queue));
  const results = (await pipeline.exec()) ?? [];
  QUEUES.forEach((queue, q) => {
    const [error, hash] = results[q] ?? [new Error("missing reply")];
    if (error) throw error;
    const fields = hash as Record<string, string>;
    for (const outcome of OUTCOMES) {
      const child = histogram.labels(queue, outcome);
      child.counts.forEach((_, i) => {
        child.counts[i] = Number(fields[`${outcome}:${i}`] ?? 0);
      });
      child.sum = Number(fields[`${outcome}:sum`] ?? 0);
      child.count = Number(fields[`${outcome}:count`] ?? 0);
    }
  });
  return histogram;
}

/** Jobs per queue and state, read from BullMQ now (one script per queue, run in parallel). */
export async function readQueueDepths(queues: Queues): Promise<Gauge> {
  const gauge = new Gauge("queue_jobs", "Jobs in each BullMQ queue by state, read at scrape time.", ["queue", "state"]);
  const counts = await Promise.all(QUEUES.map((queue: QueueName) => queues[queue].getJobCounts(...JOB_STATES)));
  QUEUES.forEach((queue, q) => {
    for (const state of JOB_STATES) gauge.labels(queue, state).set(counts[q]?.[state] ?? 0);
  });
  return gauge;
}
