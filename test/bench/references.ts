/**
 * Medication references, measured side by side in one run (`bun run bench` runs it):
 * - a cached medication lookup through the API (auth, rate limit, validation, PostgreSQL cache
 *   read, response validation) vs the trivial authenticated GET /api/v1/account, same process,
 *   wrk -c10, p50/p99; goal: p50 ≤ 3 ms;
 * - 50 concurrent identical cold lookups: upstream calls per endpoint, counted on the local
 *   server that replays recorded RxNav/openFDA responses (goal: exactly one each).
 */
import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { startWorkers } from "../../workers/runner";
import { startUpstreamFixtures } from "../helpers/upstream";
import { benchWorld, formatResult, serve, type WrkResult, wrk } from "./world";

const DURATION = process.env.BENCH_SECONDS ?? "10";
const CONNECTIONS = 10;

const upstream = startUpstreamFixtures();
const world = await benchWorld();
const upstreamEnv = {
  RXNAV_BASE_URL: upstream.rxnavUrl,
  OPENFDA_BASE_URL: upstream.openFdaUrl,
};
const deps = { ...world.deps, env: { ...world.env, ...upstreamEnv } };
const workers = await startWorkers(deps, { queues: ["rxnav", "openfda"] });
const server = await serve("full", { ...world.childEnv, ...upstreamEnv });
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
  const load = (path: string, seconds: string): WrkResult =>
    wrk(base, "test/bench/path.lua", { BENCH_PATH: path, BENCH_KEY: apiKey }, seconds, CONNECTIONS);
  for (const path of ["/api/v1/account", "/api/v1/health/medication?name=aspirin"]) load(path, "2");
  const trivial = load("/api/v1/account", DURATION);
  const cached = load("/api/v1/health/medication?name=aspirin", DURATION);
  if (cached.errors > 0 || trivial.errors > 0) throw new Error("non-2xx responses during the bench");

  console.log(`\nReferences, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  console.log("| endpoint | result | p50 ratio to trivial |");
  console.log("|---|---|---|");
  console.log(`| GET /api/v1/account (trivial) | ${formatResult(trivial)} | 1.00 |`);
  console.log(
    `| GET /api/v1/health/medication?name=aspirin (cached) | ${formatResult(cached)} | ${(cached.p50 / trivial.p50).toFixed(2)} |`,
  );
  console.log(
    `\n50 concurrent cold lookups: statuses ${[...statuses].join(",")}; upstream calls ${JSON.stringify(calls)}`,
  );
} finally {
  await stopProcess(server.child);
  await workers.close();
  await upstream.stop();
  await world.cleanup();
}
