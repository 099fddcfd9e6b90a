import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { QueueEvents } from "bullmq";
import { createApp } from "../../../api/app";
import { listApiKeysByAccount } from "../../../shared/auth/accountRepository";
import type { Deps } from "../../../shared/context/deps";
import { JOBS } from "../../../shared/jobs/catalog";
import { enqueue } from "../../../shared/jobs/queue";
import { startWorkers, type Workers } from "../../../workers/runner";
import { call, createTestAccount } from "../../helpers/http";
import { queueEventsFor, testDeps } from "../../helpers/infra";

let deps: Deps;
let workers: Workers;
let events: QueueEvents;

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { concurrency: 2 });
  events = await queueEventsFor(deps, "maintenance");
});

afterAll(async () => {
  await events.close();
  await workers.close();
});

describe("workers", () => {
  test("key usage recorded by requests reaches PostgreSQL through the flush job", async () => {
    const account = await createTestAccount(deps, "pro");
    const before = await listApiKeysByAccount(deps.sql, account.accountId);
    expect(before[0]?.lastUsedAt).toBeNull();
    await call(createApp(deps), "/api/v1/account", { key: account.apiKey });

    const job = await enqueue(deps.queues, "maintenance.flush-key-usage", {});
    const result = (await job.waitUntilFinished(events, 10_000)) as { keys: number };
    expect(result.keys).toBeGreaterThanOrEqual(1);
    const after = await listApiKeysByAccount(deps.sql, account.accountId);
    expect(after[0]?.lastUsedAt).toBeInstanceOf(Date);
  });

  test("the repeatable flush is scheduled from the catalog", async () => {
    const schedulers = await deps.queues.maintenance.getJobSchedulers();
    const flush = schedulers.find((scheduler) => scheduler.key === "maintenance.flush-key-usage");
    expect(flush?.every).toBe(JOBS["maintenance.flush-key-usage"].everyMs);
  });

  test("producers validate payloads against the catalog", async () => {
    await expect(enqueue(deps.queues, "maintenance.flush-key-usage", { extra: 1 } as never)).rejects.toThrow(
      /Invalid payload/,
    );
  });
});
