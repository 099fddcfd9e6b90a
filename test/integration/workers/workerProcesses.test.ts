import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { QUEUE_CONCURRENCY, QUEUE_FETCH_BATCH, workerSlots } from "../../../shared/jobs/catalog";
import { exitWithin, type Service, spawnService } from "../../helpers/faults";
import { processEnvFor, testDeps } from "../../helpers/infra";

let deps: Deps;
let service: Service;

beforeAll(async () => {
  deps = await testDeps();
  service = await spawnService("workers", { ...processEnvFor(deps.env), WORKER_QUEUES: "chat", WORKER_PROCESSES: "2" });
});

afterAll(() => {
  if (service.child.exitCode === null) service.child.kill("SIGKILL");
});

test("WORKER_PROCESSES=2 runs two worker processes, and SIGTERM stops both", async () => {
  const perProcess = workerSlots(QUEUE_CONCURRENCY.chat, QUEUE_FETCH_BATCH.chat).length;
  await waitFor("both worker processes", async () => {
    if (service.child.exitCode !== null) throw new Error(`workers exited: ${await service.log()}`);
    return (await deps.queues.chat.getWorkersCount()) === 2 * perProcess;
  });
  service.child.kill("SIGTERM");
  const code = await exitWithin(service.child, 20_000);
  if (code !== 0) console.log(await service.log());
  expect(code).toBe(0);
  await waitFor("every worker gone", async () => (await deps.queues.chat.getWorkersCount()) === 0);
});
