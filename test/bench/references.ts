/**
 * Medication references, measured side by side in one run (`bun run bench` runs it):
 * - a cached medication lookup through the API (auth, rate limit, validation, the answer held in
 *   memory and confirmed against the PostgreSQL cache) vs the trivial authenticated
 *   GET /api/v1/account, same process,
 *   wrk -c10, p50/p99 and the API process's CPU per request; goal: p50 ≤ 3× the trivial route's;
 * - 50 concurrent identical cold lookups: upstream calls per endpoint, counted on the local
 *   server that replays recorded RxNav/openFDA responses (goal: exactly one each).
 * In `bench:quick` (QUICK) the loads are 1 s of warm-up and 2 s of measure.
 */
import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { startWorkers } from "../../workers/runner";
import { startUpstreamFixtures } from "../helpers/upstream";
import { QUICK, reportGoal } from "./goals";
import { benchWorld, cpuMs, formatResult, serve, type WrkResult, wrk } from "./world";

const DURATION = QUICK ? "2" : (process.env.BENCH_SECONDS ?? "10");
const WARMUP = QUICK ? "1" : "2";
const CONNECTIONS = 10;

const upstream = startUpstreamFixtures();
const world = await benchWorld();
const upstreamEnv = {
  RXNAV_BASE_URL: upstream.rxnavUrl,
  OPENFDA_BASE_URL: upstream.openFdaUrl,
};
const deps = { ...world.deps, env: { ...world.env, ...upstreamEnv } };
const workers = await startWorkers(deps, { queues: ["rxnav", "openfda"] });
// BENCH_PROFILE=<dir>: the API writes a CPU profile there (Bun's --cpu-prof, markdown) when it stops.
const profile = process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const server = await serve("full", { ...world.childEnv, ...upstreamEnv }, profile);
try {
  const { apiKey } = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });

  // Cold: 50 identical lookups at once.
  const cold = await Promise.all(Array.from({ length: 50 }, () => get("/api/v1/health/medication?name=aspirin")));
  const statuses = new Set(cold.map((r) => r.status));
  const calls = Object.fromEntries(upstream.hits);

  // Warm: the same lookup, now cached, against the trivial endpoint.
  const load = (path: string, seconds: string): WrkResult & { cpuUs: number } => {
    const before = cpuMs(server.child.pid);
    const result = wrk(base, "test/bench/path.lua", { BENCH_PATH: path, BENCH_KEY: apiKey }, seconds, CONNECTIONS);
    return { ...result, cpuUs: ((cpuMs(server.child.pid) - before) * 1000) / result.requests };
  };
  for (const path of ["/api/v1/account", "/api/v1/health/medication?name=aspirin"]) load(path, WARMUP);
  const trivial = load("/api/v1/account", DURATION);
  const cached = load("/api/v1/health/medication?name=aspirin", DURATION);
  if (cached.errors > 0 || trivial.errors > 0) throw new Error("non-2xx responses during the bench");

  console.log(`\nReferences, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  const ratio = cached.p50 / trivial.p50;
  const row = (name: string, r: WrkResult & { cpuUs: number }, p50Ratio: number) =>
    console.log(`| ${name} | ${formatResult(r)} | ${Math.round(r.cpuUs)} µs | ${p50Ratio.toFixed(2)} |`);
  console.log("| endpoint | result | API CPU/request | p50 ratio to trivial |");
  console.log("|---|---|---|---|");
  row("GET /api/v1/account (trivial)", trivial, 1);
  row("GET /api/v1/health/medication?name=aspirin (cached)", cached, ratio);
  console.log(
    `\n50 concurrent cold lookups: statuses ${[...statuses].join(",")}; upstream calls ${JSON.stringify(calls)}`,
  );
  reportGoal({
    bench: "medication",
    measure: "cached medication lookup p50 / trivial route p50",
    value: ratio,
    goal: 3,
    kind: "max",
    unit: "×",
  });
} finally {
  await stopProcess(server.child);
  await workers.close();
  await upstream.stop();
  await world.cleanup();
}
