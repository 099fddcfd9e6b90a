import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../../shared/context/deps";
import { QUEUE_CONCURRENCY, QUEUE_FETCH_BATCH, workerSlots } from "../../../shared/jobs/catalog";
import { startWorkers, type Workers } from "../../../workers/runner";
import { testDeps } from "../../helpers/infra";

/**
 * BullMQ starts none of the jobs a Worker fetches until its fetch loop stops (catalog.ts,
 * QUEUE_FETCH_BATCH), so the chat queue's slots are split over Workers of a few slots each.
 */
describe("workerSlots", () => {
  test("splits a queue's slots into Workers of at most the batch, adding up to its concurrency", () => {
    expect(workerSlots(256, 8)).toEqual(Array.from({ length: 32 }, () => 8));
    expect(workerSlots(20, 8)).toEqual([8, 8, 4]);
    expect(workerSlots(5, 8)).toEqual([5]);
    expect(workerSlots(128, undefined)).toEqual([128]);
  });
});

describe("a worker process's chat queue", () => {
  let deps: Deps;
  let workers: Workers;

  beforeAll(async () => {
    deps = await testDeps();
    workers = await startWorkers(deps, { queues: ["chat"] });
  });

  afterAll(async () => {
    await workers.close();
  });

  test("runs as one BullMQ Worker per batch of slots", async () => {
    const batch = QUEUE_FETCH_BATCH.chat as number;
    expect(batch).toBeLessThanOrEqual(16);
    const expected = workerSlots(QUEUE_CONCURRENCY.chat, batch).length;
    expect(expected).toBeGreaterThan(1);
    // Each Worker holds one named blocking connection, which is what BullMQ counts.
    expect(await deps.queues.chat.getWorkersCount()).toBe(expected);
  });
});
