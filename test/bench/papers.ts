/**
 * Paper search and ingest, measured side by side in one run (`bun run bench` runs it after the
 * foundation bench).
 * - Data: by default the demo papers the service ships (shared/data/papers/demo.jsonl.gz, 3,035
 *   records), so the bench runs on a fresh clone. The measurements in docs/benchmarks.md used a
 *   full arXiv metadata snapshot (145,574 records); a large file is used only when given:
 *   `BENCH_PAPERS=<file.jsonl[.gz]> bun test/bench/papers.ts`. A BENCH_PAPERS that does not exist
 *   is an error, never a quiet fallback to the demo slice.
 * - Ingest: `papers:ingest` end to end (queue → workers → PostgreSQL → Meilisearch, settled), with
 *   the workers in their own process as `bun run workers` runs them, vs Meilisearch ingesting the
 *   same documents as NDJSON directly into an index with the same settings.
 * - Search: the API (auth, rate limit, validation, Meilisearch, mapping) vs the same queries sent
 *   straight to Meilisearch (the very bodies the API builds, over keep-alive like the API), 20
 *   concurrent clients, 70 % title searches and 30 % fielded searches with a title word, a category
 *   and a date sort. Both targets run BENCH_ROUNDS times in alternation (the machine is shared and
 *   noisy); CPU per request of the API process and of Meilisearch comes from /proc.
 * In `bench:quick` (QUICK) the demo papers are still ingested, and search runs one round of 2 s
 * (after 1 s warm-ups).
 */
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { stopProcess } from "../../scripts/lib/processes";
import { DEMO_PAPERS } from "../../scripts/lib/seed";
import { indexUid } from "../../search-index/indexes";
import { createAccount } from "../../shared/auth/accounts";
import { fromPaperHit, PAPERS_SETTINGS, type PaperHit, toPaperDocument } from "../../shared/papers/search/document";
import { toPaper } from "../../shared/records/paper";
import { QUICK, reportGoal } from "./goals";
import { searchRequests } from "./searchRequests";
import { benchWorld, cpuMs, formatResult, ingestFile, serve, type WrkResult, wrk } from "./world";

const SOURCE = process.env.BENCH_PAPERS ? resolve(process.env.BENCH_PAPERS) : DEMO_PAPERS;
const DURATION = QUICK ? "2" : (process.env.BENCH_SECONDS ?? "10");
const WARMUP = QUICK ? "1" : "3";
const ROUNDS = QUICK ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 20;
const PAGE_SIZE = 20;

if (!(await Bun.file(SOURCE).exists())) {
  console.error(`The papers bench needs its data file: BENCH_PAPERS=${SOURCE} is not there.`);
  process.exit(1);
}

const world = await benchWorld();
const { deps, env, childEnv, meiliPid } = world;
// The deployment's shape: workers in their own process, as `bun run workers` (or `start`) runs them.
const workers = Bun.spawn([process.execPath, "workers/main.ts"], {
  env: childEnv,
  stdout: "ignore",
  stderr: "inherit",
});
try {
  // --- Ingest ---------------------------------------------------------------------------------
  const { summary: ingested, sources } = await ingestFile(childEnv, SOURCE);
  await stopProcess(workers);
  const papers = sources.map(toPaper);
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
  // The raw index only served the ingest comparison; searches go to the service's index.
  await deps.meili.deleteIndex(rawUid).waitTask({ timeout: 60_000 });

  // --- Search ---------------------------------------------------------------------------------
  const { apiKey } = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: env.REDIS_PREFIX },
    { plan: "pro" },
  );
  // The answer cache off: this bench measures what the service adds to every search it sends on
  // (its ~200 queries repeat, and would be answered from the cache; searchCache.ts measures that).
  const api = await serve("full", { ...childEnv, SEARCH_CACHE_MAX_BYTES: "0" });
  const uid = indexUid(env.MEILI_INDEX_PREFIX, "papers");
  // Deterministic sample: a title word of 5+ letters from every STRIDE-th paper, about 200 queries
  // (every 700th paper of the full snapshot, as measured before; every 15th of the demo slice). The
  // raw bodies are the ones the API builds for the same request (same functions), so both sides ask
  // Meilisearch the same.
  const STRIDE = Math.min(700, Math.max(1, Math.floor(papers.length / 200)));
  const apiLines: string[] = [];
  const meiliLines: string[] = [];
  const searches = searchRequests(uid, PAGE_SIZE);
  papers.forEach((paper, i) => {
    if (i % STRIDE !== 0) return;
    const word = paper.title.split(/[^A-Za-z]+/).find((w) => w.length >= 5);
    if (!word) return;
    const archive = (paper.primaryCategory.split(".")[0] as string).replaceAll('"', "");
    const request = apiLines.length % 10 >= 7 ? searches.fielded(word, archive) : searches.title(word);
    apiLines.push(request.api);
    meiliLines.push(request.meili);
  });
  const apiFile = join(env.DATA_DIR, "api-requests.tsv");
  const meiliFile = join(env.DATA_DIR, "meili-requests.tsv");
  await writeFile(apiFile, `${apiLines.join("\n")}\n`);
  await writeFile(meiliFile, `${meiliLines.join("\n")}\n`);
  // One request of each kind by hand first: a broken setup should fail loudly, not as a fast bench,
  // and both sides must return the same papers.
  for (const i of [0, 7]) {
    const [method, path, body] = (apiLines[i] as string).split("\t");
    const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body || undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
    const [, rawPath, rawBody] = (meiliLines[i] as string).split("\t");
    const raw = await fetch(`${env.MEILI_URL}${rawPath}`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.MEILI_MASTER_KEY}`, "content-type": "application/json" },
      body: rawBody,
    });
    const [viaApi, direct] = [
      ((await response.json()) as { data: unknown }).data,
      ((await raw.json()) as { hits: PaperHit[] }).hits.map(fromPaperHit),
    ];
    if (JSON.stringify(viaApi) !== JSON.stringify(direct)) throw new Error(`API and Meilisearch disagree on ${path}`);
  }
  const script = "test/bench/requests.lua";
  const measure = (pid: number | undefined, url: string, vars: Record<string, string>, seconds = DURATION) => {
    const before = { meili: cpuMs(meiliPid), api: cpuMs(pid) };
    const result = wrk(url, script, vars, seconds, CLIENTS);
    return {
      ...result,
      meiliCpu: (cpuMs(meiliPid) - before.meili) / result.requests,
      apiCpu: pid === undefined ? 0 : (cpuMs(pid) - before.api) / result.requests,
    };
  };
  const apiTarget = (seconds = DURATION) =>
    measure(
      api.child.pid,
      `http://127.0.0.1:${api.port}`,
      { BENCH_REQUESTS: apiFile, BENCH_AUTH: `Bearer ${apiKey}` },
      seconds,
    );
  const meiliTarget = () =>
    measure(undefined, env.MEILI_URL as string, {
      BENCH_REQUESTS: meiliFile,
      BENCH_AUTH: `Bearer ${env.MEILI_MASTER_KEY}`,
    });
  // Both targets warm up first (JIT, caches), so round 1 measures the same state as the others.
  apiTarget(WARMUP);
  measure(
    undefined,
    env.MEILI_URL as string,
    { BENCH_REQUESTS: meiliFile, BENCH_AUTH: `Bearer ${env.MEILI_MASTER_KEY}` },
    WARMUP,
  );
  const rounds: { raw: Measured; viaApi: Measured }[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push({ raw: meiliTarget(), viaApi: apiTarget() });
  await stopProcess(api.child);
  const errors = rounds.reduce((sum, r) => sum + r.raw.errors + r.viaApi.errors, 0);
  if (errors > 0) throw new Error(`${errors} non-2xx responses`);

  console.log(`\nPapers: ${papers.length.toLocaleString("en-US")} records, ${new Date().toISOString()}\n`);
  console.log("| measure | through the service | Meilisearch directly | ratio | goal |");
  console.log("|---|---|---|---|---|");
  console.log(
    `| ingest | ${Math.round(ingestRate).toLocaleString("en-US")} docs/s | ${Math.round(rawRate).toLocaleString("en-US")} docs/s | ${(ingestRate / rawRate).toFixed(2)} | ≥ 0.7 |`,
  );
  rounds.forEach(({ raw, viaApi }, i) => {
    console.log(
      `| search round ${i + 1}, ${CLIENTS} clients, ${apiLines.length} queries (70/30) | ${formatResult(viaApi)}; CPU/req API ${viaApi.apiCpu.toFixed(2)} ms, Meilisearch ${viaApi.meiliCpu.toFixed(2)} ms | ${formatResult(raw)}; CPU/req Meilisearch ${raw.meiliCpu.toFixed(2)} ms | p50 ${(viaApi.p50 / raw.p50).toFixed(2)}× | p50 ≤ 1.3× raw + 1 ms (${(raw.p50 * 1.3 + 1).toFixed(2)} ms): ${viaApi.p50 <= raw.p50 * 1.3 + 1 ? "met" : "not met"}; p99 ≤ 25 ms: ${viaApi.p99 <= 25 ? "met" : "not met"} |`,
    );
  });
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  const p50Met = rounds.filter(({ raw, viaApi }) => viaApi.p50 <= raw.p50 * 1.3 + 1).length;
  const p99s = rounds.map(({ viaApi }) => viaApi.p99);
  console.log(
    `\n- search p50 goal met in ${p50Met} of ${rounds.length} rounds (median ratio ${median(rounds.map(({ raw, viaApi }) => viaApi.p50 / raw.p50)).toFixed(2)}×); search p99 through the service: median ${median(p99s).toFixed(2)} ms, worst ${Math.max(...p99s).toFixed(2)} ms (goal ≤ 25 ms: ${p99s.filter((p) => p <= 25).length} of ${rounds.length} rounds)`,
  );
  reportGoal({
    bench: "papers",
    measure: "ingest through the service / Meilisearch directly (docs/s)",
    value: ingestRate / rawRate,
    goal: 0.7,
    kind: "min",
    unit: "×",
  });
  // The search goal is p50 ≤ 1.3× raw + 1 ms. Reported bound-adjusted, as (service p50 − 1 ms) / raw
  // p50 against 1.3, which is the same inequality: a plain p50 ratio against 1.3 would miss the 1 ms
  // allowance, which is most of the budget when raw Meilisearch answers in about a millisecond.
  reportGoal({
    bench: "papers",
    measure: "search p50: (service p50 − 1 ms) / Meilisearch p50 (goal ≤ 1.3× raw + 1 ms), median of rounds",
    value: median(rounds.map(({ raw, viaApi }) => (viaApi.p50 - 1) / raw.p50)),
    goal: 1.3,
    kind: "max",
    unit: "×",
  });
  reportGoal({
    bench: "papers",
    measure: "search p99 through the service, median of rounds",
    value: median(p99s),
    goal: 25,
    kind: "max",
    unit: "ms",
  });
} finally {
  await stopProcess(workers);
  await world.cleanup();
}

type Measured = WrkResult & { meiliCpu: number; apiCpu: number };
