import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { QueueEvents } from "bullmq";
import type { Deps } from "../../../shared/context/deps";
import { enqueue } from "../../../shared/jobs/queue";
import { startWorkers, type Workers } from "../../../workers/runner";
import { queueEventsFor, testDeps } from "../../helpers/infra";

let deps: Deps;
let workers: Workers;
let events: QueueEvents;

beforeAll(async () => {
  const base = await testDeps();
  // The variable a worker process reads, as `WORKER_QUEUES=maintenance,chat bun run workers` sets it.
  deps = { ...base, env: { ...base.env, WORKER_QUEUES: "maintenance, chat" } };
  workers = await startWorkers(deps);
  events = await queueEventsFor(deps, "maintenance");
});

afterAll(async () => {
  await events.close();
  await workers.close();
});

describe("a worker process limited by WORKER_QUEUES", () => {
  test("works on the listed queues only", async () => {
    expect(workers.queues).toEqual(["maintenance", "chat"]);
    expect(await deps.queues.maintenance.getWorkersCount()).toBeGreaterThanOrEqual(1);
    expect(await deps.queues.chat.getWorkersCount()).toBeGreaterThanOrEqual(1);
    expect(await deps.queues.papers.getWorkersCount()).toBe(0);
    expect(await deps.queues.uploads.getWorkersCount()).toBe(0);
  });

  test("jobs of a listed queue run", async () => {
    const job = await enqueue(deps.queues, "maintenance.flush-key-usage", {});
    expect(await job.waitUntilFinished(events, 10_000)).toEqual({ keys: expect.any(Number) });
  });
});
