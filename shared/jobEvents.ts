import { type Job, QueueEvents } from "bullmq";
import type { QueueName } from "./jobs";
import { createRedis, type Redis } from "./redis";

/**
 * Completion events of queues whose results a request waits for. One `QueueEvents` (one blocking
 * Redis connection) per queue and process, opened on first use and kept: opening one per request
 * would cost a connection and could miss an event published before it was ready.
 */
export interface JobEvents {
  waitFor<T>(queue: QueueName, job: Job, timeoutMs: number): Promise<T>;
  close(): Promise<void>;
}

export function createJobEvents(redisUrl: string, prefix: string): JobEvents {
  const open = new Map<QueueName, Promise<QueueEvents>>();
  const connections: Redis[] = [];
  const eventsOf = (queue: QueueName) => {
    let events = open.get(queue);
    if (!events) {
      // Blocking reads need their own connection (maxRetriesPerRequest: null).
      const connection = createRedis(redisUrl, "worker");
      connections.push(connection);
      const created = new QueueEvents(queue, { connection, prefix });
      events = created.waitUntilReady().then(() => created);
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
