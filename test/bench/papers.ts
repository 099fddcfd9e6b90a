/**
 * Paper search and ingest, measured side by side in one run (`bun run bench` runs it after the
 * foundation bench). Indexes all 145,574 records of ../shared/data/arxiv/papers.jsonl.gz.
 * - Ingest: `papers:ingest` end to end (queue → PostgreSQL → Meilisearch, settled) vs Meilisearch
 *   ingesting the same documents as NDJSON directly into an index with the same settings.
 * - Search: the API (auth, rate limit, validation, Meilisearch, mapping) vs the same queries sent
 *   straight to Meilisearch, 20 concurrent clients, 70 % title searches and 30 % fielded searches
 *   with a title word, a category and a date sort.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stopProcess } from "../../scripts/lib/processes";
import { PAPERS_SETTINGS, toPaperDocument } from "../../search-index/papers";
import { indexUid } from "../../search-index/settings";
import { parseSourceLine, toPaper } from "../../shared/papers/record";
import { createAccount } from "../../shared/services/accounts";
import { startWorkers } from "../../workers/runner";
import { benchWorld, formatResult, serve, wrk } from "./world";

const SOURCE = join(import.meta.dir, "../../../shared/data/arxiv/papers.jsonl.gz");
const DURATION = process.env.BENCH_SECONDS ?? "10";
const CLIENTS = 20;

if (!(await Bun.file(SOURCE).exists())) {
  console.log(`Skipping the papers bench: ${SOURCE} is not there.`);
  process.exit(0);
}

const world = await benchWorld();
const { deps, env, childEnv } = world;
const workers = await startWorkers(deps);
try {
  // --- Ingest ---------------------------------------------------------------------------------
  const ingest = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", SOURCE], {
    env: childEnv,
    stdout: "pipe",
    stderr: "ignore",
  });
  if ((await ingest.exited) !== 0) throw new Error("papers:ingest failed");
  const ingested = JSON.parse(await new Response(ingest.stdout).text()) as { records: number; seconds: number };

  const text = new TextDecoder().decode(Bun.gunzipSync(await Bun.file(SOURCE).bytes()));
  const papers = text
    .split("\n")
    .filter(Boolean)
    .map((line) => toPaper(parseSourceLine(line)));
  const rawUid = indexUid(env.MEILI_INDEX_PREFIX, "raw_papers");
  await deps.meili.createIndex(rawUid, { primaryKey: "pk" }).waitTask({ timeout: 60_000 });
  await deps.meili.index(rawUid).updateSettings(PAPERS_SETTINGS).waitTask({ timeout: 60_000 });
  const chunks: string[] = [];
  for (let i = 0; i < papers.length; i += 10_000) {
    chunks.push(
      papers
        .slice(i, i + 10_000)
        .map((paper) => JSON.stringify(toPaperDocument(paper)))
        .join("\n"),
    );
  }
  const rawStart = performance.now();
  const tasks = [];
  for (const chunk of chunks)
    tasks.push(
      await deps.meili.index(rawUid).addDocumentsFromString(chunk, "application/x-ndjson", { primaryKey: "pk" }),
    );
  for (const task of tasks) await deps.meili.tasks.waitForTask(task.taskUid, { timeout: 600_000, interval: 100 });
  const rawSeconds = (performance.now() - rawStart) / 1000;
  const ingestRate = ingested.records / ingested.seconds;
  const rawRate = papers.length / rawSeconds;

  // --- Search ---------------------------------------------------------------------------------
  const { apiKey } = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const api = await serve("full", childEnv);
  const uid = indexUid(env.MEILI_INDEX_PREFIX, "papers");
  // Deterministic sample: a title word of 5+ letters from every 700th paper.
  const apiLines: string[] = [];
  const meiliLines: string[] = [];
  papers.forEach((paper, i) => {
    if (i % 700 !== 0) return;
    const word = paper.title.split(/[^A-Za-z]+/).find((w) => w.length >= 5);
    if (!word) return;
    const archive = (paper.primaryCategory.split(".")[0] as string).replaceAll('"', "");
    const simple = { q: word, attributesToSearchOn: ["title"], matchingStrategy: "all", offset: 0, limit: 21 };
    const fielded = {
      ...simple,
      filter: `(categories = "${archive}" OR categoryArchives = "${archive}")`,
      sort: ["submittedTs:desc"],
    };
    const advanced = apiLines.length % 10 >= 7;
    if (advanced) {
      const body = { searchFilterString: { ti: word, cat: archive }, sortBy: "submittedDate", sortOrder: "desc" };
      apiLines.push(`POST\t/api/v1/papers/search\t${JSON.stringify(body)}`);
      meiliLines.push(`POST\t/indexes/${uid}/search\t${JSON.stringify(fielded)}`);
    } else {
      apiLines.push(`GET\t/api/v1/papers/search?q=${encodeURIComponent(word)}&limit=20\t`);
      meiliLines.push(`POST\t/indexes/${uid}/search\t${JSON.stringify(simple)}`);
    }
  });
  const apiFile = join(env.DATA_DIR, "api-requests.tsv");
  const meiliFile = join(env.DATA_DIR, "meili-requests.tsv");
  await writeFile(apiFile, `${apiLines.join("\n")}\n`);
  await writeFile(meiliFile, `${meiliLines.join("\n")}\n`);
  // One request of each kind by hand first: a broken setup should fail loudly, not as a fast bench.
  for (const line of [apiLines[0], apiLines[7]]) {
    const [method, path, body] = (line as string).split("\t");
    const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body || undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
  }
  const script = "test/bench/requests.lua";
  const apiTarget = () =>
    wrk(
      `http://127.0.0.1:${api.port}`,
      script,
      { BENCH_REQUESTS: apiFile, BENCH_AUTH: `Bearer ${apiKey}` },
      DURATION,
      CLIENTS,
    );
  const meiliTarget = () =>
    wrk(
      env.MEILI_URL as string,
      script,
      { BENCH_REQUESTS: meiliFile, BENCH_AUTH: `Bearer ${env.MEILI_MASTER_KEY}`, BENCH_CLOSE: "1" },
      DURATION,
      CLIENTS,
    );
  wrk(
    `http://127.0.0.1:${api.port}`,
    script,
    { BENCH_REQUESTS: apiFile, BENCH_AUTH: `Bearer ${apiKey}` },
    "2",
    CLIENTS,
  );
  const raw = meiliTarget();
  const viaApi = apiTarget();
  await stopProcess(api.child);
  if (viaApi.errors > 0 || raw.errors > 0)
    throw new Error(`non-2xx responses: api ${viaApi.errors}, meili ${raw.errors}`);

  console.log(`\nPapers: ${papers.length.toLocaleString("en-US")} records, ${new Date().toISOString()}\n`);
  console.log("| measure | through the service | Meilisearch directly | ratio | goal |");
  console.log("|---|---|---|---|---|");
  console.log(
    `| ingest | ${Math.round(ingestRate).toLocaleString("en-US")} docs/s | ${Math.round(rawRate).toLocaleString("en-US")} docs/s | ${(ingestRate / rawRate).toFixed(2)} | ≥ 0.7 |`,
  );
  console.log(
    `| search, ${CLIENTS} clients, ${apiLines.length} queries (70/30) | ${formatResult(viaApi)} | ${formatResult(raw)} | p50 ${(viaApi.p50 / raw.p50).toFixed(2)}× | p50 ≤ 1.3× raw + 1 ms (${(raw.p50 * 1.3 + 1).toFixed(2)} ms); p99 ≤ 25 ms |`,
  );
} finally {
  await workers.close();
  await world.cleanup();
}
