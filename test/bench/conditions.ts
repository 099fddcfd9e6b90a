/**
 * Condition lookups through the API vs the trivial authenticated GET /api/v1/account, side by side
 * in one run (same process, wrk -c10, p50/p99; goal: lookup p50 ≤ 3 ms). A repeated name is served
 * from the API process's lookup cache; an uncached lookup is one Meilisearch multi-search (exact
 * filter + ranked search), then PostgreSQL (term, parent labels) and the related-paper multi-search
 * in parallel — measured sequentially, in this process, with the service verb and no cache.
 * Loads the bundled MONDO slice and demo papers first.
 *   bun test/bench/conditions.ts        (needs wrk: apt-get install wrk; BENCH_CONNECTIONS, BENCH_SECONDS)
 */
import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { lookupCondition } from "../../shared/conditions/lookup";
import { startWorkers } from "../../workers/runner";
import { QUICK, reportGoal } from "./goals";
import { benchWorld, formatResult, loadDemoData, serve, type WrkResult, wrk } from "./world";

const DURATION = process.env.BENCH_SECONDS ?? (QUICK ? "1" : "10");
const WARM_UP = QUICK ? "1" : "2";
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATHS = [
  ["GET /api/v1/account (trivial)", "/api/v1/account"],
  ["condition, exact label (asthma)", "/api/v1/health/condition?q=asthma"],
  ["condition, exact synonym (migraine)", "/api/v1/health/condition?q=migraine"],
  ["condition, one typo (influensa)", "/api/v1/health/condition?q=influensa"],
  ["condition, no acceptable match → 404 (asthma attack)", "/api/v1/health/condition?q=asthma%20attack"],
  ["condition by id (MONDO:0004979, with children)", "/api/v1/health/condition/MONDO:0004979"],
] as const;

if (!Bun.which("wrk")) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(1);
}

const world = await benchWorld();
const workers = await startWorkers(world.deps, { queues: ["papers", "conditions"] });
const server = await serve("full", world.childEnv);
try {
  await loadDemoData(world.childEnv);
  const { apiKey } = await createAccount(
    { sql: world.deps.sql, redis: world.deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const load = (path: string, seconds: string): WrkResult =>
    wrk(base, "test/bench/path.lua", { BENCH_PATH: path, BENCH_KEY: apiKey }, seconds, CONNECTIONS);
  // The quick run: the trivial route, an exact label and the slowest kind (by id, with children).
  const paths = QUICK ? PATHS.filter((_, i) => i === 0 || i === 1 || i === PATHS.length - 1) : PATHS;
  for (const [, path] of paths) load(path, WARM_UP);
  const results = paths.map(([label, path]) => ({ label, result: load(path, DURATION) }));
  const trivial = results[0]?.result as WrkResult;

  console.log(`\nConditions, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  console.log("| endpoint | result | p50 ratio to trivial |");
  console.log("|---|---|---|");
  for (const { label, result } of results) {
    // wrk counts the deliberate 404 as non-2xx; every other row must be all 200s.
    if (result.errors > 0 && !label.includes("404")) throw new Error(`non-2xx responses: ${label}`);
    console.log(`| ${label} | ${formatResult(result)} | ${(result.p50 / trivial.p50).toFixed(2)} |`);
  }

  const slowest = results.slice(1).reduce((worst, row) => (row.result.p50 > worst.result.p50 ? row : worst));
  console.log(`\nSlowest kind of lookup: ${slowest.label}.`);
  reportGoal({
    bench: "conditions",
    measure: "condition lookup p50, the slowest kind of lookup",
    value: slowest.result.p50,
    goal: 3,
    kind: "max",
    unit: "ms",
  });
  // The quick run (bench:quick) measures the goal only.
  if (!QUICK) {
    console.log("\nUncached lookup verb (no HTTP, no cache), sequential, 300 calls after 30 warm-up\n");
    console.log("| query | p50 | p99 |");
    console.log("|---|---|---|");
    for (const q of ["asthma", "migraine", "influensa", "asthma attack"]) {
      const { p50, p99 } = await timeCalls(() => lookupCondition(world.deps, { q }).catch(() => undefined));
      console.log(`| ${q} | ${p50.toFixed(2)} ms | ${p99.toFixed(2)} ms |`);
    }
  }
} finally {
  await stopProcess(server.child);
  await workers.close();
  await world.cleanup();
}

async function timeCalls(call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 30; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[150] as number, p99: times[297] as number };
}
