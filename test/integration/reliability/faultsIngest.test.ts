import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Job, QueueEvents } from "bullmq";
import { stopProcess } from "../../../scripts/lib/processes";
import { createMeili } from "../../../search-index/client";
import { dropIndexes, indexUid } from "../../../search-index/indexes";
import { type Env, redisTarget } from "../../../shared/core/env";
import { createRedis, duplicateRedis, queuePrefix, type Redis } from "../../../shared/core/redis";
import { migrate } from "../../../shared/db/migrate";
import { createSql, dropDatabase, ensureDatabase, type Sql } from "../../../shared/db/sql";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { closeQueues, createQueues, enqueue, type Queues } from "../../../shared/jobs/queue";
import { parseSourceLine, type SourcePaper, toPaper } from "../../../shared/records/paper";
import { exitWithin, ownPrefix, removeServiceLogs, type Service, spawnService } from "../../helpers/faults";
import { processEnvFor, testWorld } from "../../helpers/infra";
import { deletePrefix } from "../../helpers/redisKeys";

/**
 * Worker processes killed in the middle of a paper ingest. The file has its own database, Redis
 * prefix and index prefix, so the papers table and index hold exactly what this file wrote. Batches
 * are small (40 papers) so a kill lands between and inside batches.
 */
const BATCH = 40;

let env: Env;
let sql: Sql;
let connection: Redis;
let queues: Queues;
let events: QueueEvents;
let childEnv: Record<string, string | undefined>;
let records: SourcePaper[];
const running: Service[] = [];
const report: Record<string, unknown> = {};

beforeAll(async () => {
  const world = await testWorld();
  const dbUrl = new URL(world.env.DATABASE_URL as string);
  dbUrl.pathname = `${dbUrl.pathname}_fi`;
  env = {
    ...world.env,
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: ownPrefix(world.env, "fi"),
    MEILI_INDEX_PREFIX: `${world.env.MEILI_INDEX_PREFIX}fi_`,
  };
  await ensureDatabase(env.DATABASE_URL as string);
  sql = createSql(env.DATABASE_URL as string, { max: 2 });
  await migrate(sql);
  await applyIndexSettings(meili(), env.MEILI_INDEX_PREFIX);
  // Two jobs at a time per worker: several batches are in flight when the kill comes, not all of them.
  childEnv = { ...processEnvFor(env), LOG_LEVEL: "warn", WORKER_CONCURRENCY: "2" };
  connection = createRedis(redisTarget(env), "worker");
  queues = createQueues(connection, env.REDIS_PREFIX);
  events = new QueueEvents("papers", {
    connection: duplicateRedis(connection, {}),
    prefix: queuePrefix(env.REDIS_PREFIX, "papers"),
  });
  await events.waitUntilReady();
  const text = new TextDecoder().decode(
    Bun.gunzipSync(await Bun.file(`${import.meta.dir}/../../fixtures/arxiv/papers-1k.jsonl.gz`).bytes()),
  );
  records = text.split("\n").filter(Boolean).map(parseSourceLine);
});

afterAll(async () => {
  await Promise.all(running.map((service) => stopProcess(service.child, 2000)));
  await events?.close();
  if (queues) await closeQueues(queues);
  connection?.disconnect();
  await sql?.end({ timeout: 5 });
  if (env) {
    await dropIndexes(meili(), env.MEILI_INDEX_PREFIX).catch(() => {});
    await dropDatabase(env.DATABASE_URL as string);
    await deletePrefix(redisTarget(env), env.REDIS_PREFIX);
  }
  await removeServiceLogs();
  if (Object.keys(report).length > 0) console.info("faults: ingest", JSON.stringify(report));
});

function meili() {
  return createMeili(env.MEILI_URL as string, env.MEILI_MASTER_KEY);
}

async function startWorker(concurrency = 2): Promise<Service> {
  const service = await spawnService("workers", { ...childEnv, WORKER_CONCURRENCY: String(concurrency) });
  running.push(service);
  return service;
}

/** Enqueues `input` in batches with job ids `<run>-<n>`; `completed()` counts this run's finished batches. */
async function submit(run: string, input: SourcePaper[]) {
  let completed = 0;
  const failures: string[] = [];
  const ours = (jobId: string) => jobId.startsWith(`${run}-`);
  const onCompleted = ({ jobId }: { jobId: string }) => {
    if (ours(jobId)) completed += 1;
  };
  const onFailed = ({ jobId, failedReason }: { jobId: string; failedReason: string }) => {
    if (ours(jobId)) failures.push(`${jobId}: ${failedReason}`);
  };
  events.on("completed", onCompleted);
  events.on("failed", onFailed);
  const jobs: Job[] = [];
  for (let start = 0; start < input.length; start += BATCH) {
    const batch = input.slice(start, start + BATCH);
    jobs.push(await enqueue(queues, "papers.index-batch", { records: batch }, { jobId: `${run}-${start / BATCH}` }));
  }
  return {
    jobs,
    completed: () => completed,
    async whenCompleted(count: number) {
      while (completed < count && failures.length === 0) await Bun.sleep(20);
      if (failures.length > 0) throw new Error(`batches failed: ${failures.join("; ")}`);
    },
    /** Every batch of the run completed (the test's own timeout bounds the wait). */
    async finish() {
      await this.whenCompleted(jobs.length);
      events.off("completed", onCompleted);
      events.off("failed", onFailed);
    },
  };
}

/** The paper ids stored in PostgreSQL and in Meilisearch, each as a sorted list (duplicates would show). */
async function storedIds() {
  const pg = (await sql<{ id: string }[]>`select id from papers order by id`).map((row) => row.id);
  const index = meili().index(indexUid(env.MEILI_INDEX_PREFIX, "papers"));
  const search: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await index.getDocuments<{ id: string }>({ fields: ["id"], limit: 1000, offset });
    search.push(...page.results.map((doc) => doc.id));
    if (page.results.length < 1000) break;
  }
  const stats = await index.getStats();
  return { pg, search: search.sort(), searchCount: stats.numberOfDocuments };
}

const idsOf = (input: SourcePaper[]) => [...new Set(input.map((record) => toPaper(record).id))].sort();

async function waitForWorker() {
  while ((await queues.papers.getWorkers()).length === 0) await Bun.sleep(50);
}

describe("faults: worker processes killed mid ingest", () => {
  test("SIGKILL after a few batches, then a re-run: PostgreSQL and Meilisearch hold exactly the input set", async () => {
    const input = records.slice(0, 600);
    const doomed = await startWorker();
    await waitForWorker();
    const first = await submit("kill1", input);
    await first.whenCompleted(4);
    doomed.child.kill("SIGKILL");
    await doomed.child.exited;
    expect(doomed.child.signalCode).toBe("SIGKILL");
    const completedAtKill = first.completed();
    const atKill = await storedIds();
    // The kill really was mid-ingest: some batches never ran.
    expect(completedAtKill).toBeLessThan(first.jobs.length);
    expect(atKill.pg.length).toBeLessThan(input.length);

    // The re-run (what `papers:ingest` does: the same records under new job ids) converges.
    await startWorker(8);
    const rerun = await submit("kill1rerun", input);
    await rerun.finish();
    const after = await storedIds();
    expect(after.pg).toEqual(idsOf(input));
    expect(after.search).toEqual(idsOf(input));
    expect(after.searchCount).toBe(idsOf(input).length);
    Object.assign(report, {
      sigkill: {
        batches: first.jobs.length,
        completedAtKill,
        inPostgresAtKill: atKill.pg.length,
        inMeiliAtKill: atKill.search.length,
        afterRerun: after.pg.length,
      },
    });
  }, 60_000);

  test("SIGTERM mid ingest: the worker finishes its active batches and exits 0; another worker does the rest; nothing lost, nothing re-run", async () => {
    const input = records.slice(600);
    // The worker of the first test is still running: stop it, so the SIGTERMed one is alone at first.
    await Promise.all(running.splice(0).map((service) => stopProcess(service.child)));
    const leaving = await startWorker();
    await waitForWorker();
    const run = await submit("term1", input);
    await run.whenCompleted(3);
    const signalledAt = performance.now();
    leaving.child.kill("SIGTERM");
    const code = await exitWithin(leaving.child, 20_000);
    const exitMs = Math.round(performance.now() - signalledAt);
    expect(code).toBe(0);
    const completedByLeaver = run.completed();
    expect(completedByLeaver).toBeLessThan(run.jobs.length);

    await startWorker(8);
    await run.finish();
    expect(run.completed()).toBe(run.jobs.length);
    // Every batch ran exactly once: none was stalled (handed back by lock expiry) or retried.
    for (const job of run.jobs) {
      const stored = (await queues.papers.getJob(job.id as string)) as Job;
      expect(await stored.getState()).toBe("completed");
      expect(stored.stalledCounter).toBe(0);
      expect(stored.attemptsStarted).toBe(1);
    }
    const after = await storedIds();
    const all = idsOf(records);
    expect(after.pg).toEqual(all);
    expect(after.search).toEqual(all);
    Object.assign(report, {
      sigterm: { batches: run.jobs.length, completedByLeaver, exitCode: code, exitMs, total: after.pg.length },
    });
  }, 60_000);
});
