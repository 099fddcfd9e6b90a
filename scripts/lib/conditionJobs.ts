import { QueueEvents } from "bullmq";
import type { ConditionTerm } from "../../shared/conditions/term";
import { type Env, redisUrl } from "../../shared/env";
import { closeQueues, createQueues, enqueue } from "../../shared/queue";
import { createRedis, redisReady } from "../../shared/redis";
import { NoWorkersError } from "./paperJobs";

/** Batches queued ahead of the workers: the conditions queue's concurrency, times two. */
const IN_FLIGHT = 8;

/**
 * Runs term batches through the `conditions` queue and resolves when every batch is done. Waits up
 * to 30 s for workers (they may be starting alongside). Job ids carry a per-run id so a re-run redoes
 * every batch (the writes are idempotent) instead of being skipped as a duplicate of a finished job.
 */
export async function runConditionBatches(
  env: Env,
  batches: { terms: ConditionTerm[]; obsolete: string[] }[],
): Promise<{ seconds: number }> {
  const connection = createRedis(redisUrl(env), "worker");
  await redisReady(connection);
  const queues = createQueues(connection, env.REDIS_PREFIX);
  const events = new QueueEvents("conditions", { connection: connection.duplicate(), prefix: env.REDIS_PREFIX });
  try {
    await events.waitUntilReady();
    const deadline = Date.now() + 30_000;
    while ((await queues.conditions.getWorkers()).length === 0 && Date.now() < deadline) await Bun.sleep(250);
    if ((await queues.conditions.getWorkers()).length === 0) {
      throw new NoWorkersError("No workers are running: start them with `bun run workers` (or `bun run start`).");
    }
    const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const startedAt = performance.now();
    const pending = new Set<Promise<unknown>>();
    let done = 0;
    for (const [index, batch] of batches.entries()) {
      const job = await enqueue(queues, "conditions.index-batch", batch, { jobId: `conditions-${runId}-${index}` });
      const finished = job.waitUntilFinished(events).then(() => {
        done += batch.terms.length + batch.obsolete.length;
        process.stderr.write(`\r  ${done.toLocaleString("en-US")} terms processed   `);
      });
      pending.add(finished);
      void finished.finally(() => pending.delete(finished)).catch(() => {});
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    }
    await Promise.all(pending);
    process.stderr.write("\n");
    return { seconds: Math.round((performance.now() - startedAt) / 10) / 100 };
  } finally {
    await events.close();
    await closeQueues(queues);
    connection.disconnect();
  }
}
