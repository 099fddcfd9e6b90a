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

/** The tasks waited on, by uid (in polling order), and whether a poll loop is running. */
interface Watch {
  meili: Meilisearch;
  waiting: Map<number, Waiter[]>;
  polling: boolean;
}

/**
 * One poll of Meilisearch's task list per process, for every task its jobs wait on. A paper job
 * waits for its task while many more are in flight (large Meilisearch batches need that); a poll
 * per job every 50 ms would be hundreds of requests a second to the server that does the indexing.
 */
function createTaskWatcher(meili: Meilisearch) {
  const watch: Watch = { meili, waiting: new Map(), polling: false };
  return {
    wait(taskUid: number, timeoutMs: number): Promise<Task> {
      return new Promise<Task>((resolve, reject) => {
        const waiters = watch.waiting.get(taskUid) ?? [];
        waiters.push({ resolve, reject, deadline: Date.now() + timeoutMs });
        watch.waiting.set(taskUid, waiters);
        if (!watch.polling) void poll(watch);
      });
    },
  };
}

/** Polls until no task is waited on. */
async function poll(watch: Watch): Promise<void> {
  watch.polling = true;
  try {
    while (watch.waiting.size > 0) {
      await Bun.sleep(POLL_MS);
      const uids = [...watch.waiting.keys()].slice(0, UIDS_PER_POLL);
      const page = await watch.meili.tasks.getTasks({ uids, limit: uids.length }).catch(() => undefined);
      settleFinished(watch.waiting, page?.results ?? []);
      rejectOverdue(watch.waiting, Date.now());
      moveToBack(watch.waiting, uids);
    }
  } finally {
    watch.polling = false;
  }
}

function settleFinished(waiting: Map<number, Waiter[]>, tasks: Task[]): void {
  for (const task of tasks) {
    if (!FINISHED.has(task.status)) continue;
    for (const waiter of waiting.get(task.uid) ?? []) waiter.resolve(task);
    waiting.delete(task.uid);
  }
}

function rejectOverdue(waiting: Map<number, Waiter[]>, now: number): void {
  for (const [uid, waiters] of waiting) {
    for (const waiter of waiters) {
      if (waiter.deadline <= now) waiter.reject(new Error(`Meilisearch task ${uid} did not finish in time`));
    }
    const left = waiters.filter((waiter) => waiter.deadline > now);
    if (left.length === 0) waiting.delete(uid);
    else waiting.set(uid, left);
  }
}

/** The uids just polled go to the back of the map, so no task waits behind UIDS_PER_POLL others for ever. */
function moveToBack(waiting: Map<number, Waiter[]>, uids: number[]): void {
  for (const uid of uids) {
    const waiters = waiting.get(uid);
    if (!waiters) continue;
    waiting.delete(uid);
    waiting.set(uid, waiters);
  }
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

/** Throws unless the task succeeded: a write Meilisearch did not apply must fail its job, which retries. */
export function requireSucceeded(task: Task): void {
  if (task.status !== "succeeded") {
    throw new Error(`Meilisearch task ${task.uid} ${task.status}: ${JSON.stringify(task.error)}`);
  }
}

/** Resolves once Meilisearch has applied a write task (through the process's one poller); else throws. */
export async function writeApplied(meili: Meilisearch, taskUid: number, timeoutMs: number): Promise<void> {
  requireSucceeded(await finishedTask(meili, taskUid, timeoutMs));
}
