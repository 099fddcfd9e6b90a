import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { QueueEvents } from "bullmq";
import { DEMO_PAPERS, reindexWhenBehind } from "../../../scripts/lib/seed";
import { indexUid } from "../../../search-index/indexes";
import type { Deps } from "../../../shared/context/deps";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { enqueue } from "../../../shared/jobs/queue";
import { countPapers, findPaperById } from "../../../shared/papers/repository";
import { fromPaperHit, type PaperDocument, paperKey, toPaperDocument } from "../../../shared/papers/search/document";
import { type Paper, parseSourceLine, type SourcePaper } from "../../../shared/records/paper";
import { startWorkers, type Workers } from "../../../workers/runner";
import { processEnvFor, queueEventsFor, testDeps, testWorld } from "../../helpers/infra";

let deps: Deps;
let workers: Workers;
let events: QueueEvents;
let records: SourcePaper[];

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps);
  events = await queueEventsFor(deps, "papers");
  const text = new TextDecoder().decode(
    Bun.gunzipSync(await Bun.file(`${import.meta.dir}/../../fixtures/arxiv/papers-1k.jsonl.gz`).bytes()),
  );
  records = text.split("\n").filter(Boolean).slice(0, 200).map(parseSourceLine);
});

afterAll(async () => {
  await events.close();
  await workers.close();
});

async function meiliCount(): Promise<number> {
  return (await deps.meili.index(indexUid(deps.env.MEILI_INDEX_PREFIX, "papers")).getStats()).numberOfDocuments;
}

async function pgHolds(batch: SourcePaper[]): Promise<number> {
  const [row] = await deps.sql<{ n: number }[]>`
    select count(*)::int as n from papers where id = any(${batch.map((record) => record.id)})`;
  return row?.n ?? 0;
}

async function meiliHolds(batch: SourcePaper[]): Promise<number> {
  const keys = batch.map((record) => JSON.stringify(paperKey(record.id))).join(", ");
  const found = await deps.meili
    .index(indexUid(deps.env.MEILI_INDEX_PREFIX, "papers"))
    .search("", { filter: `pk IN [${keys}]`, limit: batch.length, attributesToRetrieve: ["pk"] });
  return found.hits.length;
}

async function run(batch: SourcePaper[], jobId: string) {
  const job = await enqueue(deps.queues, "papers.index-batch", { records: batch }, { jobId });
  return job.waitUntilFinished(events, 60_000);
}

describe("paper ingestion through the queue", () => {
  test("a batch lands in PostgreSQL and Meilisearch; repeating it adds nothing; a changed record is updated", async () => {
    // Other files may have stored some of these papers already (in PostgreSQL only): count what is new.
    const first150 = records.slice(0, 150);
    const [pgBefore, meiliBefore] = [await countPapers(deps.sql), await meiliCount()];
    const [pgKnown, meiliKnown] = [await pgHolds(first150), await meiliHolds(first150)];
    expect(await run(records.slice(0, 100), "ingest-a")).toEqual({ papers: 100 });
    expect(await pgHolds(first150.slice(0, 100))).toBe(100);
    expect(await meiliHolds(first150.slice(0, 100))).toBe(100);

    expect(await run(records.slice(50, 150), "ingest-b")).toEqual({ papers: 100 });
    // Exactly one copy of each: the totals grew by the papers that were new, no more.
    expect(await countPapers(deps.sql)).toBe(pgBefore + 150 - pgKnown);
    expect(await meiliCount()).toBe(meiliBefore + 150 - meiliKnown);

    const changed = { ...(records[0] as SourcePaper), title: "A corrected title" };
    await run([changed], "ingest-c");
    expect((await findPaperById(deps.sql, changed.id))?.title).toBe("A corrected title");
    const hit = await deps.meili
      .index(indexUid(deps.env.MEILI_INDEX_PREFIX, "papers"))
      .getDocument(paperKey(changed.id));
    expect(hit.title).toBe("A corrected title");
  });

  test("the CLI streams a gzip file through the queue and reports what it did", async () => {
    const { env } = await testWorld();
    const cli = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", DEMO_PAPERS], {
      env: processEnvFor(env),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await cli.exited).toBe(0);
    const summary = JSON.parse(await new Response(cli.stdout).text());
    expect(summary).toMatchObject({ records: 3035, batches: 4, invalid: 0 });
    expect(await new Response(cli.stderr).text()).toContain("docs/s");
    // The demo slice includes the 1k file's records, so everything so far is one copy each.
    expect(await countPapers(deps.sql)).toBe(3035);
    expect(await meiliCount()).toBe(3035);
  }, 60_000);

  test("papers:reindex rebuilds a lost search index from PostgreSQL", async () => {
    const { env } = await testWorld();
    const index = deps.meili.index(indexUid(deps.env.MEILI_INDEX_PREFIX, "papers"));
    await index.deleteAllDocuments().waitTask({ timeout: 30_000 });
    expect(await meiliCount()).toBe(0);
    const cli = Bun.spawn([process.execPath, "scripts/papers-reindex.ts"], {
      env: processEnvFor(env),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await cli.exited).toBe(0);
    const pgCount = await countPapers(deps.sql);
    expect(JSON.parse(await new Response(cli.stdout).text())).toMatchObject({
      papers: pgCount,
      batches: Math.ceil(pgCount / 1000),
    });
    expect(await meiliCount()).toBe(pgCount);
    const stored = await findPaperById(deps.sql, "hep-th/9901001");
    expect(stored).toBeDefined();
    const document = await index.getDocument<PaperDocument>(paperKey("hep-th/9901001"));
    expect(fromPaperHit(document)).toEqual(stored as Paper);
  }, 60_000);

  test("documents of an earlier layout are emptied by the settings step and rebuilt when the index is behind", async () => {
    const { env } = await testWorld();
    const index = deps.meili.index(indexUid(deps.env.MEILI_INDEX_PREFIX, "papers"));
    const stored = (await findPaperById(deps.sql, "hep-th/9901001")) as Paper;
    // Up to layout 1, documents held the API's fields as attributes and no `record`.
    await index.deleteAllDocuments().waitTask({ timeout: 30_000 });
    await index.addDocuments([{ ...stored, pk: paperKey(stored.id) }]).waitTask({ timeout: 30_000 });
    expect(await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX)).toEqual(["papers"]);
    expect(await meiliCount()).toBe(0);
    // Current documents are left alone.
    await index.addDocuments([toPaperDocument(stored)]).waitTask({ timeout: 30_000 });
    expect(await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX)).toEqual([]);
    expect(await meiliCount()).toBe(1);

    const pgCount = await countPapers(deps.sql);
    expect(await reindexWhenBehind(env, processEnvFor(env))).toBe(true);
    expect(await meiliCount()).toBe(pgCount);
    expect(await reindexWhenBehind(env, processEnvFor(env))).toBe(false);
  }, 60_000);

  test("a file that is not arXiv metadata is refused line by line, with reasons", async () => {
    const { env } = await testWorld();
    const path = `${env.DATA_DIR}/bad.jsonl`;
    await Bun.write(path, '{"hello": 1}\nnot json\n');
    const cli = Bun.spawnSync([process.execPath, "scripts/papers-ingest.ts", path], {
      env: { ...process.env, DATABASE_URL: env.DATABASE_URL, REDIS_PREFIX: env.REDIS_PREFIX },
    });
    expect(cli.exitCode).toBe(1);
    const summary = JSON.parse(cli.stdout.toString());
    expect(summary).toMatchObject({ records: 0, invalid: 2 });
    expect(summary.invalidSamples[0].line).toBe(1);
  });
});
