import { QueueEvents } from "bullmq";
import { type Env, redisUrl } from "../../shared/env";
import type { JobName, JobPayload } from "../../shared/jobs";
import { closeQueues, createQueues, enqueue, type Queues } from "../../shared/queue";
import { createRedis, redisReady } from "../../shared/redis";

/** Batches queued ahead of the workers: enough to keep every worker slot and Meilisearch busy. */
const IN_FLIGHT = 16;

export class NoWorkersError extends Error {}

/**
 * Runs paper batches through the queue for a CLI: waits for workers to register (they may be
 * starting alongside), keeps at most IN_FLIGHT batches queued, reports progress on stderr, and
 * resolves when every batch is done. Job ids carry a per-run id, so a re-run redoes every batch
 * (the writes are idempotent) instead of being skipped as a duplicate of a finished job.
 */
export async function withPaperQueue<T>(
  env: Env,
  use: (submit: <N extends JobName>(name: N, payload: JobPayload<N>, papers: number) => Promise<void>) => Promise<T>,
): Promise<T & { seconds: number; docsPerSecond: number }> {
  const connection = createRedis(redisUrl(env), "worker");
  await redisReady(connection);
  const queues: Queues = createQueues(connection, env.REDIS_PREFIX);
  const events = new QueueEvents("papers", { connection: connection.duplicate(), prefix: env.REDIS_PREFIX });
  try {
    await events.waitUntilReady();
    const deadline = Date.now() + 30_000;
    while ((await queues.papers.getWorkers()).length === 0 && Date.now() < deadline) await Bun.sleep(250);
    if ((await queues.papers.getWorkers()).length === 0) {
      throw new NoWorkersError("No workers are running: start them with `bun run workers` (or `bun run start`).");
    }
    const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const startedAt = performance.now();
    const pending = new Set<Promise<unknown>>();
    let batches = 0;
    let done = 0;
    const submit = async <N extends JobName>(name: N, payload: JobPayload<N>, papers: number) => {
      batches += 1;
      const job = await enqueue(queues, name, payload, { jobId: `papers-${runId}-${batches}` });
      const finished = job.waitUntilFinished(events).then(() => {
        done += papers;
        const seconds = (performance.now() - startedAt) / 1000;
        const rate = Math.round(done / Math.max(seconds, 0.001)).toLocaleString("en-US");
        process.stderr.write(
          `\r  ${done.toLocaleString("en-US")} papers indexed, ${rate} docs/s, ${seconds.toFixed(1)} s   `,
        );
      });
      pending.add(finished);
      void finished.finally(() => pending.delete(finished)).catch(() => {});
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    };
    const result = await use(submit);
    await Promise.all(pending);
    process.stderr.write("\n");
    const seconds = (performance.now() - startedAt) / 1000;
    return { ...result, seconds: Math.round(seconds * 100) / 100, docsPerSecond: Math.round(done / seconds) };
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
