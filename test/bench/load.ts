/**
 * Load and soak run (issue 9): `bun run bench:load [--minutes 10] [--rate 1]`.
 * The deployment's shape on one machine: 2 API processes (`bun api/server.ts`) and 2 worker
 * processes (`bun workers/main.ts`) on the bench world's own database, Redis prefix and
 * Meilisearch, loaded with the demo papers, MONDO slice and medication cache (no network).
 * Open model, like k6's constant-arrival-rate: every operation arrives at a fixed rate whether or
 * not earlier requests have answered; requests go round-robin to the two APIs (a client-side load
 * balancer). Any non-2xx, network error or chat stream without `[DONE]` is an error. Every account
 * is on pro with its share of the run far below its hourly limit, so the expected count is 0.
 * Reports per operation requests, req/s, p50/p90/p99/max and errors; RSS of each process every
 * 10 s with a least-squares slope after the warm-up; CPU and the machine's load.
 * Past --rate 4, raise Bun's limit of 256 concurrent fetches, or the client queues requests itself:
 *   BUN_CONFIG_MAX_HTTP_REQUESTS=4096 bun run bench:load --minutes 2 --rate 8
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { freePort, stopProcess, tcpOpen, waitFor } from "../../scripts/lib/processes";
import { DEMO_PAPERS } from "../../scripts/lib/seed";
import { DEMO_CONDITIONS } from "../../scripts/lib/seedConditions";
import { seedDemoReferences } from "../../scripts/lib/seedReferences";
import { createAccount } from "../../shared/auth/accounts";
import { PLANS } from "../../shared/core/plans";
import { conditionNames, firstChunkRow, LOG_DIR, paperQueries, printReport, type RunFacts } from "./loadReport";
import { loadAverage, type MemorySeries, OpStats, rssMb, samplesCsv } from "./loadStats";
import { benchWorld, cpuMs, loadDemoData } from "./world";

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { minutes: { type: "string", default: "10" }, rate: { type: "string", default: "1" } },
});
const MINUTES = Number(flags.minutes);
const RATE = Number(flags.rate);
if (!(MINUTES > 0) || !(RATE > 0)) throw new Error("--minutes and --rate take positive numbers");
const RUN_MS = MINUTES * 60_000;
/** Latencies of the first 10 % (at most 30 s) are left out: JIT, connection pools, caches. */
const LATENCY_WARMUP_MS = Math.min(30_000, RUN_MS * 0.1);
/** The memory slope starts after the first quarter (at most 2 minutes): heaps and caches fill first. */
const MEMORY_WARMUP_MIN = Math.min(2, MINUTES / 4);
const SAMPLE_MS = 10_000;
const MEDICATIONS = ["aspirin", "zolpidem", "phenylephrine", "adalimumab"]; // the seeded cache
const CHAT_QUESTIONS = ["symptom options for pregnancy", "what is aspirin used for?"];

interface Account {
  key: string;
  trackerId: string;
}
type Send = (base: string, account: Account, n: number, stats: OpStats) => Promise<string | undefined>;
interface Operation {
  name: string;
  /** Arrivals per second at --rate 1. */
  perSecond: number;
  send: Send;
}

const loadBefore = loadAverage();
const world = await benchWorld();
// Bun writes a child's output file from its start without truncating it: begin with no old logs.
rmSync(LOG_DIR, { recursive: true, force: true });
mkdirSync(LOG_DIR, { recursive: true });
const spawned: { name: string; child: ReturnType<typeof Bun.spawn> }[] = [];
const start = (name: string, script: string, extra: Record<string, string> = {}) => {
  // Logs go to files (written like production's stdout), so a failure can be looked into afterwards.
  const child = Bun.spawn([process.execPath, script], {
    env: { ...world.childEnv, ...extra },
    stdout: Bun.file(`${LOG_DIR}/${name}.log`),
    stderr: Bun.file(`${LOG_DIR}/${name}.err`),
  });
  spawned.push({ name, child });
  return child;
};

try {
  start("worker-1", "workers/main.ts");
  start("worker-2", "workers/main.ts");
  await loadDemoData(world.childEnv);
  await seedDemoReferences(world.env);
  const bases: string[] = [];
  for (const name of ["api-1", "api-2"]) {
    const port = freePort();
    start(name, "api/server.ts", { HOST: "127.0.0.1", PORT: String(port) });
    await waitFor(name, () => tcpOpen("127.0.0.1", port), 30_000);
    bases.push(`http://127.0.0.1:${port}`);
  }

  const papers = await paperQueries(DEMO_PAPERS);
  // Filled once the accounts exist (checking which names answer needs a key).
  let conditions: string[] = [];
  const operations: Operation[] = [
    {
      name: "papers: title search",
      perSecond: 30,
      send: (base, a, n) =>
        get(base, a, `/api/v1/papers/search?q=${encodeURIComponent(pick(papers, n).word)}&limit=20`),
    },
    {
      name: "papers: fielded search",
      perSecond: 15,
      send: (base, a, n) => {
        const { word, archive } = pick(papers, n);
        const body = { searchFilterString: { ti: word, cat: archive }, sortBy: "submittedDate", sortOrder: "desc" };
        return send(base, a, "POST", "/api/v1/papers/search", body);
      },
    },
    {
      name: "tracker: add entry",
      perSecond: 20,
      send: (base, a, n) =>
        send(base, a, "POST", `/api/v1/health/trackers/${a.trackerId}/entries`, {
          severity: n % 11,
          symptoms: ["fever", "cough", "headache"].slice(0, 1 + (n % 3)),
          temperature: 36.5 + (n % 30) / 10,
          temperatureUnit: "C",
          activityImpact: ["normal", "limited", "unable"][n % 3],
        }),
    },
    {
      name: "tracker: read log",
      perSecond: 4,
      send: (base, a) => get(base, a, `/api/v1/health/trackers/${a.trackerId}`),
    },
    {
      name: "tracker: summary",
      perSecond: 2,
      send: (base, a) => get(base, a, `/api/v1/health/trackers/${a.trackerId}/summary?unit=C`),
    },
    {
      name: "reference: medication (cached)",
      perSecond: 12,
      send: (base, a, n) => get(base, a, `/api/v1/health/medication?name=${pick(MEDICATIONS, n)}`),
    },
    {
      name: "reference: condition",
      perSecond: 12,
      send: (base, a, n) => get(base, a, `/api/v1/health/condition?q=${encodeURIComponent(pick(conditions, n))}`),
    },
    { name: "chat: streamed turn", perSecond: 5, send: (base, a, n, stats) => chat(base, a, n, stats) },
  ];
  const perSecond = operations.reduce((sum, op) => sum + op.perSecond * RATE, 0);
  // Each account's share of the whole run stays under half its hourly limit.
  const accountCount = Math.max(8, Math.ceil((perSecond * MINUTES * 60) / (PLANS.pro.requestsPerHour / 2)));
  const accounts = await Promise.all(
    Array.from({ length: accountCount }, (_, i) => setUpAccount(bases[i % 2] as string)),
  );
  // Condition names the demo slice answers (a name with no acceptable match is a deliberate 404, not load).
  conditions = await conditionNames(DEMO_CONDITIONS, (name) =>
    get(bases[0] as string, accounts[0] as Account, `/api/v1/health/condition?q=${encodeURIComponent(name)}`),
  );

  const processes = [
    ...spawned.map(({ name, child }) => ({ name, pid: child.pid })),
    ...(world.meiliPid ? [{ name: "meilisearch", pid: world.meiliPid }] : []),
    { name: "load generator", pid: process.pid },
  ];
  const memory: MemorySeries[] = processes.map((p) => ({ ...p, samples: [] }));
  const cpuBefore = processes.map((p) => cpuMs(p.pid));
  const machineBefore = machineTicks();
  const redisBefore = await redisUsedMb();
  const countersBefore = await serverCounters();
  const loadAtStart = loadAverage();
  const began = performance.now();
  const sample = () => {
    const minute = (performance.now() - began) / 60_000;
    const load1 = Number(loadAverage().split(" ")[0]);
    for (const series of memory) series.samples.push({ minute, ...rssMb(series.pid), load1 });
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  const errorKinds = new Map<string, number>();
  const stats = operations.map(() => new OpStats());
  let roundRobin = 0;
  await Promise.all(
    operations.map((op, index) =>
      drive(op.perSecond * RATE, began, RUN_MS, async (n) => {
        const opStats = stats[index] as OpStats;
        // A bound on concurrency per operation, like k6's maxVUs: beyond it an arrival is dropped.
        if (opStats.inFlight >= 500) {
          opStats.dropped += 1;
          return;
        }
        opStats.inFlight += 1;
        opStats.requests += 1;
        const base = bases[roundRobin++ % bases.length] as string;
        const sent = performance.now();
        let failure: string | undefined;
        try {
          failure = await op.send(base, accounts[n % accounts.length] as Account, n, opStats);
        } catch (error) {
          failure = `network: ${(error as Error).message}`;
        }
        opStats.inFlight -= 1;
        if (failure) {
          opStats.errors += 1;
          const kind = `${op.name} → ${failure}`;
          errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
        } else if (sent - began >= LATENCY_WARMUP_MS) opStats.latencies.push(performance.now() - sent);
      }),
    ),
  );
  // Let the last arrivals finish (they count) before the closing samples.
  const drainUntil = Date.now() + 60_000;
  while (stats.some((s) => s.inFlight > 0) && Date.now() < drainUntil) await Bun.sleep(50);
  const elapsedMs = performance.now() - began;
  sample();
  clearInterval(sampler);

  const machine = machineTicks();
  const counters = await serverCounters();
  const facts: RunFacts = {
    minutes: MINUTES,
    rate: RATE,
    elapsedMs,
    latencyWarmupMs: LATENCY_WARMUP_MS,
    memoryWarmupMin: MEMORY_WARMUP_MIN,
    accounts: accountCount,
    conditions: conditions.length,
    loadBefore,
    loadAtStart,
    loadAfter: loadAverage(),
    machineBusyCores: ((machine.busy - machineBefore.busy) / (machine.total - machineBefore.total)) * cpus().length,
    cores: cpus().length,
    cpu: processes.map((p, i) => ({ name: p.name, cores: (cpuMs(p.pid) - (cpuBefore[i] ?? 0)) / elapsedMs })),
    redisMb: { before: redisBefore, after: await redisUsedMb() },
    pgTransactionsPerSecond: (counters.pg - countersBefore.pg) / (elapsedMs / 1000),
    redisCommandsPerSecond: (counters.redis - countersBefore.redis) / (elapsedMs / 1000),
  };
  printReport(
    facts,
    operations.map((op, i) => ({ name: op.name, perSecond: op.perSecond * RATE, stats: stats[i] as OpStats })),
    memory,
    errorKinds,
  );
  console.log(firstChunkRow(stats[7] as OpStats));
  console.log(`This run's Redis keys at the end: ${await redisFootprint()}.`);
  await Bun.write(`${LOG_DIR}/memory.csv`, samplesCsv(memory));
  console.log(`Memory samples: ${LOG_DIR}/memory.csv; process logs: ${LOG_DIR}/*.log`);
} finally {
  await Promise.all(spawned.map(({ child }) => stopProcess(child)));
  await world.cleanup();
}

/** Fires `arrive(n)` at `perSecond`, on a fixed schedule from `began`, without waiting for answers. */
async function drive(perSecond: number, began: number, runMs: number, arrive: (n: number) => Promise<void>) {
  const interval = 1000 / perSecond;
  const pending = new Set<Promise<void>>();
  for (let n = 0; n * interval < runMs; n++) {
    const due = began + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const arrival = arrive(n);
    pending.add(arrival);
    void arrival.finally(() => pending.delete(arrival));
  }
  await Promise.all(pending);
}

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length] as T;
}

function headers(account: Account): Record<string, string> {
  return { authorization: `Bearer ${account.key}`, "content-type": "application/json" };
}

/** undefined on 2xx (body read to the end), else the failure's kind. */
async function outcome(response: Response): Promise<string | undefined> {
  const text = await response.text();
  if (response.ok) return undefined;
  let code = "";
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? "";
  } catch {}
  return `HTTP ${response.status} ${code}`.trim();
}

async function get(base: string, account: Account, path: string): Promise<string | undefined> {
  return outcome(await fetch(`${base}${path}`, { headers: headers(account) }));
}

async function send(base: string, account: Account, method: string, path: string, body: unknown) {
  return outcome(await fetch(`${base}${path}`, { method, headers: headers(account), body: JSON.stringify(body) }));
}

/** A streamed health chat turn, read to the end; records the time to the first chunk. */
async function chat(base: string, account: Account, n: number, stats: OpStats): Promise<string | undefined> {
  const sent = performance.now();
  const response = await fetch(`${base}/api/v1/health/chat`, {
    method: "POST",
    headers: headers(account),
    body: JSON.stringify({ message: pick(CHAT_QUESTIONS, n), stream: true }),
  });
  if (!response.ok) return outcome(response);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let first = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (!first) first = performance.now() - sent;
    text += decoder.decode(value, { stream: true });
  }
  stats.firstChunk.push(first);
  if (!text.includes("data: [DONE]")) return "stream ended without [DONE]";
  if (text.includes('"type":"error"')) return "error chunk in the stream";
  return undefined;
}

/** A pro account with a saved consent and one acute log (the tracker writes need both). */
async function setUpAccount(base: string): Promise<Account> {
  const { apiKey } = await createAccount(
    { sql: world.deps.sql, redis: world.deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const account = { key: apiKey, trackerId: "" };
  const consent = await send(base, account, "POST", "/api/v1/health/profile", { consentGiven: true });
  if (consent) throw new Error(`profile: ${consent}`);
  const response = await fetch(`${base}/api/v1/health/trackers`, {
    method: "POST",
    headers: headers(account),
    body: JSON.stringify({ title: "Load test", kind: "acute" }),
  });
  if (response.status !== 201) throw new Error(`tracker: HTTP ${response.status}`);
  account.trackerId = ((await response.json()) as { id: string }).id;
  return account;
}

/** The whole machine's CPU ticks (busy = everything but idle and iowait), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    ?.trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const total = fields.reduce((s, v) => s + v, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

/**
 * PostgreSQL transactions of this run's own database, and commands the whole Redis server ran
 * (Redis cannot count per key prefix: other users of the server are included).
 */
async function serverCounters(): Promise<{ pg: number; redis: number }> {
  const [row] = await world.deps.sql<{ xacts: string }[]>`
    select xact_commit + xact_rollback as xacts from pg_stat_database where datname = current_database()`;
  const info = await world.deps.redis.info("stats");
  return { pg: Number(row?.xacts), redis: Number(/total_commands_processed:(\d+)/.exec(info)?.[1]) };
}

/** This run's Redis keys grouped by the segment after the prefix (rl, turnlog, chat, …): count and MB. */
async function redisFootprint(): Promise<string> {
  const kinds = new Map<string, { keys: number; bytes: number }>();
  let cursor = "0";
  do {
    const [next, keys] = await world.deps.redis.scan(cursor, "MATCH", `${world.env.REDIS_PREFIX}:*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const kind = key.split(":")[1] ?? "?";
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += Number(await world.deps.redis.memory("USAGE", key)) || 0;
      kinds.set(kind, entry);
    }
  } while (cursor !== "0");
  return [...kinds]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .map(([kind, { keys, bytes }]) => `${kind} ${keys} keys ${(bytes / 1024 / 1024).toFixed(2)} MB`)
    .join("; ");
}

async function redisUsedMb(): Promise<number> {
  const info = await world.deps.redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1]) / 1024 / 1024;
}
