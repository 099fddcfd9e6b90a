import { type Job, QueueEvents } from "bullmq";
import { createRedis, queuePrefix, type Redis, type RedisTarget } from "../core/redis";
import type { QueueName } from "../jobs/catalog";

/**
 * Completion events of queues whose results a request waits for. One `QueueEvents` (one blocking
 * Redis connection) per queue and process, opened on first use and kept: opening one per request
 * would cost a connection and could miss an event published before it was ready.
 */
export interface JobEvents {
  waitFor<T>(queue: QueueName, job: Job, timeoutMs: number): Promise<T>;
  close(): Promise<void>;
}

export function createJobEvents(target: RedisTarget, prefix: string): JobEvents {
  const open = new Map<QueueName, Promise<QueueEvents>>();
  const connections: Redis[] = [];
  const eventsOf = (queue: QueueName) => {
    let events = open.get(queue);
    if (!events) {
      // Blocking reads need their own connection (maxRetriesPerRequest: null).
      const connection = createRedis(target, "worker");
      connections.push(connection);
      events = (async () => {
        // Read from the stream's current end, not from "$": "$" is resolved when the first blocking
        // read runs, so a job finishing between `waitUntilReady` and that read would never be heard of
        // (a request waiting on it would time out).
        const queueKeys = queuePrefix(prefix, queue);
        const [last] = await connection.xrevrange(`${queueKeys}:${queue}:events`, "+", "-", "COUNT", 1);
        const created = new QueueEvents(queue, { connection, prefix: queueKeys, lastEventId: last?.[0] ?? "0-0" });
        await created.waitUntilReady();
        return created;
      })();
      open.set(queue, events);
    }
    return events;
  };
  return {
    async waitFor<T>(queue: QueueName, job: Job, timeoutMs: number): Promise<T> {
      return (await job.waitUntilFinished(await eventsOf(queue), timeoutMs)) as T;
    },
    async close() {
      const all = await Promise.allSettled(open.values());
      await Promise.all(all.map((r) => (r.status === "fulfilled" ? r.value.close() : undefined)));
      for (const connection of connections.splice(0)) connection.disconnect();
      open.clear();
    },
  };
}

/**
 * A job's result if it ends within `waitMs`, else null (the job goes on; 0 never waits). A job that
 * failed for good rejects. BullMQ's own timeout rejects like a failure, so it is set a little longer
 * than ours, which tells the two apart.
 */
export async function resultWithin<T>(
  events: JobEvents,
  queue: QueueName,
  job: Job,
  waitMs: number,
): Promise<T | null> {
  if (waitMs === 0) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
  });
  try {
    return await Promise.race([events.waitFor<T>(queue, job, waitMs + 1000), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
