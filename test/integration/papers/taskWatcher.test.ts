import { describe, expect, test } from "bun:test";
import { indexUid } from "../../../search-index/indexes";
import { finishedTask } from "../../../search-index/taskWatcher";
import { searchApplied } from "../../../shared/indexing/papers";
import { testDeps } from "../../helpers/infra";

/** Paper jobs wait for their Meilisearch tasks through one poller per process (search-index/taskWatcher.ts). */
describe("waiting for Meilisearch tasks", () => {
  test("many waits at once each get their own finished task", async () => {
    const deps = await testDeps();
    const index = deps.meili.index(indexUid(deps.env.MEILI_INDEX_PREFIX, `watch_${Date.now()}`));
    const enqueued = await Promise.all(
      Array.from({ length: 30 }, (_, i) => index.addDocuments([{ pk: `d${i}`, n: i }], { primaryKey: "pk" })),
    );
    const tasks = await Promise.all(enqueued.map((task) => finishedTask(deps.meili, task.taskUid, 60_000)));
    expect(tasks.map((task) => task.uid)).toEqual(enqueued.map((task) => task.taskUid));
    expect(tasks.every((task) => task.status === "succeeded")).toBe(true);
    expect((await index.getStats()).numberOfDocuments).toBe(30);
    await index.delete();
  });

  test("a failed task fails the write that waits for it (so the job retries)", async () => {
    const deps = await testDeps();
    const index = deps.meili.index(indexUid(deps.env.MEILI_INDEX_PREFIX, `watch_bad_${Date.now()}`));
    // Not a valid document id: Meilisearch accepts the request and fails the task.
    const task = await index.addDocuments([{ pk: "not a valid id!" }], { primaryKey: "pk" });
    await expect(searchApplied(ctxOf(deps), { taskUid: task.taskUid, papers: 1 })).rejects.toThrow(
      new RegExp(`task ${task.taskUid} failed`),
    );
    await index.delete();
  });

  test("a task that does not finish in time is an error, not a wait for ever", async () => {
    const deps = await testDeps();
    await expect(finishedTask(deps.meili, 2_000_000_000, 300)).rejects.toThrow("did not finish in time");
  });
});

function ctxOf(deps: Awaited<ReturnType<typeof testDeps>>) {
  return { sql: deps.sql, meili: deps.meili, redis: deps.redis, env: deps.env };
}
