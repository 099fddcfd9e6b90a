import type { Task } from "meilisearch";
import type { Meilisearch } from "./client";

const POLL_MS = 100;
/** Task uids per poll; more waiting tasks are polled in turns. */
const UIDS_PER_POLL = 200;
const FINISHED = new Set(["succeeded", "failed", "canceled"]);

interface Waiter {
  resolve: (task: Task) => void;
  reject: (error: Error) => void;
  deadline: number;
}

/**
 * One poll of Meilisearch's task list per process, for every task its jobs wait on. A paper job
 * waits for its task while many more are in flight (large Meilisearch batches need that); a poll
 * per job every 50 ms would be hundreds of requests a second to the server that does the indexing.
 */
function createTaskWatcher(meili: Meilisearch) {
  const waiting = new Map<number, Waiter[]>();
  let polling = false;
  const poll = async () => {
    polling = true;
    try {
      while (waiting.size > 0) {
        await Bun.sleep(POLL_MS);
        const uids = [...waiting.keys()].slice(0, UIDS_PER_POLL);
        const page = await meili.tasks.getTasks({ uids, limit: uids.length }).catch(() => undefined);
        for (const task of page?.results ?? []) {
          if (!FINISHED.has(task.status)) continue;
          for (const waiter of waiting.get(task.uid) ?? []) waiter.resolve(task);
          waiting.delete(task.uid);
        }
        const now = Date.now();
        for (const [uid, waiters] of waiting) {
          for (const waiter of waiters) {
            if (waiter.deadline <= now) waiter.reject(new Error(`Meilisearch task ${uid} did not finish in time`));
          }
          const left = waiters.filter((waiter) => waiter.deadline > now);
          if (left.length === 0) waiting.delete(uid);
          else waiting.set(uid, left);
        }
        // Polled last from the back of the map next time, so no task waits behind 200 others for ever.
        for (const uid of uids) {
          const waiters = waiting.get(uid);
          if (!waiters) continue;
          waiting.delete(uid);
          waiting.set(uid, waiters);
        }
      }
    } finally {
      polling = false;
    }
  };
  return {
    wait(taskUid: number, timeoutMs: number): Promise<Task> {
      return new Promise<Task>((resolve, reject) => {
        const waiters = waiting.get(taskUid) ?? [];
        waiters.push({ resolve, reject, deadline: Date.now() + timeoutMs });
        waiting.set(taskUid, waiters);
        if (!polling) void poll();
      });
    },
  };
}

const watchers = new WeakMap<Meilisearch, ReturnType<typeof createTaskWatcher>>();

/** Resolves with the task once Meilisearch has finished it (succeeded, failed or canceled). */
export function finishedTask(meili: Meilisearch, taskUid: number, timeoutMs: number): Promise<Task> {
  let watcher = watchers.get(meili);
  if (!watcher) {
    watcher = createTaskWatcher(meili);
    watchers.set(meili, watcher);
  }
  return watcher.wait(taskUid, timeoutMs);
}
