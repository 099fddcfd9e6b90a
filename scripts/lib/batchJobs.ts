import { QueueEvents } from "bullmq";
import { type Env, redisTarget } from "../../shared/core/env";
import { createRedis, duplicateRedis, queuePrefix, redisReady } from "../../shared/core/redis";
import type { JobName, JobPayload, QueueName } from "../../shared/jobs/catalog";
import { closeQueues, createQueues, enqueue } from "../../shared/jobs/queue";

export class NoWorkersError extends Error {}

export type Submit = <N extends JobName>(name: N, payload: JobPayload<N>, units: number) => Promise<void>;

/**
 * Runs a CLI's batches through one queue: waits up to 30 s for workers to register (they may be
 * starting alongside), keeps at most `inFlight` batches queued, reports progress on stderr, and
 * resolves when every batch is done. Job ids carry a per-run id, so a re-run redoes every batch
 * (the writes are idempotent) instead of being skipped as a duplicate of a finished job.
 */
export async function withQueueBatches<T>(
  env: Env,
  queue: QueueName,
  options: { inFlight: number; progress: (done: number, seconds: number) => string },
  use: (submit: Submit) => Promise<T>,
): Promise<{ result: T; done: number; seconds: number }> {
  const connection = createRedis(redisTarget(env), "worker");
  await redisReady(connection);
  const queues = createQueues(connection, env.REDIS_PREFIX);
  const events = new QueueEvents(queue, {
    connection: duplicateRedis(connection, {}),
    prefix: queuePrefix(env.REDIS_PREFIX, queue),
  });
  try {
    await events.waitUntilReady();
    const deadline = Date.now() + 30_000;
    while ((await queues[queue].getWorkers()).length === 0 && Date.now() < deadline) await Bun.sleep(250);
    if ((await queues[queue].getWorkers()).length === 0) {
      throw new NoWorkersError("No workers are running: start them with `bun run workers` (or `bun run start`).");
    }
    const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const startedAt = performance.now();
    const elapsed = () => (performance.now() - startedAt) / 1000;
    const pending = new Set<Promise<unknown>>();
    let batches = 0;
    let done = 0;
    const submit: Submit = async (name, payload, units) => {
      batches += 1;
      const job = await enqueue(queues, name, payload, { jobId: `${queue}-${runId}-${batches}` });
      const finished = job.waitUntilFinished(events).then(() => {
        done += units;
        process.stderr.write(`\r  ${options.progress(done, elapsed())}   `);
      });
      pending.add(finished);
      void finished.finally(() => pending.delete(finished)).catch(() => {});
      if (pending.size >= options.inFlight) await Promise.race(pending);
    };
    const result = await use(submit);
    await Promise.all(pending);
    process.stderr.write("\n");
    return { result, done, seconds: elapsed() };
  } finally {
    await events.close();
    await closeQueues(queues);
    connection.disconnect();
  }
}

/** Runs a CLI's main, printing errors as JSON on stderr with the documented exit codes. */
export function runCli(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const code = error instanceof NoWorkersError ? "UNAVAILABLE" : "INTERNAL";
      console.error(
        JSON.stringify({ error: { code, message: error instanceof Error ? error.message : String(error) } }),
      );
      process.exit(1);
    },
  );
}
