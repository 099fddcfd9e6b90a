/**
 * The chat bench's floor, run as its own process: a bare BullMQ worker that answers each job on
 * Redis pub/sub at once. BullMQ add → this worker → pub/sub back is the queue hop the chat pipeline
 * cannot avoid, measured on the same machine in the same run.
 */
import { Worker } from "bullmq";
import { loadEnv, redisTarget } from "../../shared/core/env";
import { createRedis, queuePrefix } from "../../shared/core/redis";

export const HOP_QUEUE = "bench-hop";
export const hopChannel = (prefix: string, jobId: string) => `${prefix}:hop:${jobId}`;

if (import.meta.main) {
  const env = loadEnv();
  const publisher = createRedis(redisTarget(env), "worker");
  const worker = new Worker(
    HOP_QUEUE,
    async (job) => {
      await publisher.publish(hopChannel(env.REDIS_PREFIX, job.id as string), "done");
    },
    {
      connection: createRedis(redisTarget(env), "worker"),
      prefix: queuePrefix(env.REDIS_PREFIX, HOP_QUEUE),
      concurrency: 100,
    },
  );
  await worker.waitUntilReady();
  console.log("ready");
  process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
}
