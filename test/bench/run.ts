/**
 * The foundation's overhead, measured side by side in one run (`bun run bench` runs this, then
 * test/bench/papers.ts).
 * (a) authenticated, rate-limited GET /api/v1/account vs a bare Elysia app returning the same
 *     JSON, one key; (b) the same with 10 keys (10 accounts) in parallel.
 * Both targets run as separate processes; wrk (c=50, 2 threads) loads them in alternation,
 * BENCH_ROUNDS times (default 5) per scenario (bare, full, bare, full, …): a single pair swings by ±10 % on
 * this shared 2-core machine, so the verdict uses the median round's ratio and the worst p99.
 * Needs wrk (apt-get install wrk). Prints a markdown table for docs/benchmarks.md.
 */
import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { QUICK, reportGoal } from "./goals";
import { benchWorld, cpuMs, formatResult, serve, wrk } from "./world";

// Inside `bun run bench:quick`: one round of 2 s per target after a 1 s warm-up.
const DURATION = QUICK ? "2" : (process.env.BENCH_SECONDS ?? "10");
const WARM_UP = QUICK ? "1" : "2";
/** Odd, so the median is one measured round. */
const ROUNDS = QUICK ? 1 : Math.max(1, Number.parseInt(process.env.BENCH_ROUNDS ?? "", 10) || 5) | 1;
const CONNECTIONS = 50;

if (!Bun.which("wrk")) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(1);
}

const { env, deps, childEnv, cleanup } = await benchWorld();
const keys: string[] = [];
for (let i = 0; i < 10; i++) {
  const account = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: env.REDIS_PREFIX },
    { plan: "pro" },
  );
  keys.push(account.apiKey);
}
// The targets run with limits raised so nothing is refused. Each account's log grows by one entry
// per Redis round trip (a lease of up to 256 slots): tens of thousands of entries over a run, not
// the millions one entry per request would make. A sorted set's costs grow with the logarithm of
// its size, so Redis's per-call cost stays close to what a real pro account's log (≤ 3,600) costs.
const servers = { bare: await serve("bare", childEnv), full: await serve("full", childEnv) };
const load = (port: number, benchKeys: string[], seconds: string) =>
  wrk(`http://127.0.0.1:${port}`, "test/bench/keys.lua", { BENCH_KEYS: benchKeys.join(",") }, seconds, CONNECTIONS);
// The target process's CPU per request (all its threads, from /proc): steadier across machines and
// runs than req/s, since the load generator shares the two cores.
const measure = (server: { port: number; child: { pid: number } }, benchKeys: string[]) => {
  const before = cpuMs(server.child.pid);
  const result = load(server.port, benchKeys, DURATION);
  return { ...result, cpuUs: ((cpuMs(server.child.pid) - before) * 1000) / result.requests };
};
function median(values: number[]): number {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
}
// Whatever happens, stop the targets and everything the bench world started.
try {
  const scenarios = [
    { name: "(a) 1 key", keys: keys.slice(0, 1), ratios: [] as number[], cpuRatios: [] as number[], worstP99: 0 },
    { name: "(b) 10 keys", keys, ratios: [] as number[], cpuRatios: [] as number[], worstP99: 0 },
  ];
  // Warm both (JIT, key caches) with every key set.
  for (const scenario of scenarios)
    for (const server of Object.values(servers)) load(server.port, scenario.keys, WARM_UP);
  // Rounds outermost: each round measures both scenarios back to back, so a slow patch of the
  // machine falls on both rather than on whichever ran last.
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of scenarios) {
      const bare = measure(servers.bare, scenario.keys);
      const full = measure(servers.full, scenario.keys);
      if (full.errors > 0) throw new Error(`${full.errors} non-2xx responses from the full app`);
      scenario.ratios.push(full.rps / bare.rps);
      scenario.cpuRatios.push(full.cpuUs / bare.cpuUs);
      scenario.worstP99 = Math.max(scenario.worstP99, full.p99);
      rows.push(
        `| ${scenario.name}, round ${round} | ${formatResult(bare)}; CPU ${bare.cpuUs.toFixed(1)} µs/req | ${formatResult(full)}; CPU ${full.cpuUs.toFixed(1)} µs/req | ${(full.rps / bare.rps).toFixed(2)} | ${(full.p99 / bare.p99).toFixed(2)} |`,
      );
    }
  }
  const verdicts = scenarios.map(({ name, ratios, cpuRatios, worstP99 }) => {
    const ratio = median(ratios);
    const cpu = median(cpuRatios);
    return `${name}: median throughput ratio ${ratio.toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(", ")}; goal ≥ 0.50: ${ratio >= 0.5 ? "met" : "not met"}), median CPU per request full/bare ${cpu.toFixed(2)}× (goal ≤ 2×: ${cpu <= 2 ? "met" : "not met"}), worst full-chain p99 ${worstP99.toFixed(2)} ms (goal < 5 ms: ${worstP99 < 5 ? "met" : "not met"})`;
  });
  console.log(`\nGET /api/v1/account, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  console.log("| scenario | bare Elysia | full chain (auth + rate limit + logs) | throughput ratio | p99 ratio |");
  console.log("|---|---|---|---|---|");
  for (const row of [...rows].sort()) console.log(row);
  console.log("");
  for (const verdict of verdicts) console.log(`- ${verdict}`);
  // One verdict per goal over both scenarios: the median round's ratios, the worst p99.
  const all = (pick: (scenario: (typeof scenarios)[number]) => number[]) => scenarios.flatMap(pick);
  const bench = "foundation";
  reportGoal({
    bench,
    measure: "GET /api/v1/account throughput, full chain / bare Elysia (median round)",
    value: median(all((scenario) => scenario.ratios)),
    goal: 0.5,
    kind: "min",
    unit: "×",
  });
  reportGoal({
    bench,
    measure: "GET /api/v1/account full-chain p99 at c=50 (worst round)",
    value: Math.max(...scenarios.map((scenario) => scenario.worstP99)),
    goal: 5,
    kind: "max",
    unit: "ms",
  });
  reportGoal({
    bench,
    measure: "GET /api/v1/account CPU per request, full chain / bare Elysia (median round)",
    value: median(all((scenario) => scenario.cpuRatios)),
    goal: 2,
    kind: "max",
    unit: "×",
  });
} finally {
  await Promise.all(Object.values(servers).map((server) => stopProcess(server.child)));
  await cleanup();
}
