/**
 * `bun run bench`: the foundation's overhead, measured side by side in one run.
 * (a) authenticated, rate-limited GET /api/v1/account vs a bare Elysia app returning the same
 *     JSON, one key; (b) the same with 10 keys (10 accounts) in parallel.
 * Both targets run as separate processes; wrk (c=50, 2 threads) loads them in alternation.
 * Needs wrk (apt-get install wrk). Prints a markdown table for docs/benchmarks.md.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareInfrastructure } from "../../scripts/lib/boot";
import { freePort, stopAll, stopProcess, tcpOpen, waitFor } from "../../scripts/lib/processes";
import { dropDatabase } from "../../shared/db/sql";
import { closeDeps, createDeps } from "../../shared/deps";
import { LOCAL_DATABASE_URL, parseEnv } from "../../shared/env";
import { createLogger } from "../../shared/log";
import { redisKeys, redisReady } from "../../shared/redis";
import { createAccount } from "../../shared/services/accounts";

const DURATION = process.env.BENCH_SECONDS ?? "10";
const CONNECTIONS = 50;

if (!Bun.which("wrk")) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(1);
}

const dataDir = await mkdtemp(join(tmpdir(), "phs-bench-"));
const database = new URL(LOCAL_DATABASE_URL);
database.pathname = `/phs_bench_${Date.now()}`;
const env = parseEnv({
  DATABASE_URL: database.toString(),
  REDIS_PREFIX: `bench${Date.now()}`,
  MEILI_PORT: String(freePort()),
  DATA_DIR: dataDir,
  LOG_LEVEL: "info",
});
const infra = await prepareInfrastructure(env);
const deps = createDeps(infra.env, { log: createLogger("silent") });
await redisReady(deps.redis);
const keys: string[] = [];
const rateKeys: string[] = [];
for (let i = 0; i < 10; i++) {
  const account = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: env.REDIS_PREFIX },
    { plan: "pro" },
  );
  keys.push(account.apiKey);
  rateKeys.push(redisKeys(env.REDIS_PREFIX).rateLimit(account.accountId));
}
// The targets run with limits raised so nothing is refused; left alone, each account's request log
// would grow to millions of entries, where a real pro account's never holds more than 3,600. Trimming
// the logs to that size keeps Redis's per-call cost what production sees.
const trim = setInterval(() => {
  for (const key of rateKeys) void deps.redis.zremrangebyrank(key, 0, -3601).catch(() => {});
}, 100);

const childEnv = {
  ...process.env,
  DATABASE_URL: env.DATABASE_URL,
  REDIS_PREFIX: env.REDIS_PREFIX,
  MEILI_URL: infra.env.MEILI_URL,
  MEILI_MASTER_KEY: infra.env.MEILI_MASTER_KEY,
  LOG_LEVEL: "info",
};
async function serve(mode: "bare" | "full") {
  const port = freePort();
  // Request logs go to /dev/null: the cost of writing them is measured, not the terminal's.
  const child = Bun.spawn([process.execPath, "test/bench/servers.ts", mode, String(port)], {
    env: childEnv,
    stdout: "ignore",
    stderr: "inherit",
  });
  await waitFor(`${mode} server`, () => tcpOpen("127.0.0.1", port));
  return { port, child };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function wrk(port: number, benchKeys: string[], seconds: string): Result {
  const result = Bun.spawnSync(
    [
      "wrk",
      "-t2",
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      "test/bench/keys.lua",
      `http://127.0.0.1:${port}`,
    ],
    { env: { ...process.env, BENCH_KEYS: benchKeys.join(",") } },
  );
  const out = result.stdout.toString();
  const ms = (label: string) => {
    const match = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) throw new Error(`wrk output without ${label}%:\n${out}`);
    const value = Number(match[1]);
    return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
  };
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]), p50: ms("50"), p99: ms("99"), errors };
}

const servers = { bare: await serve("bare"), full: await serve("full") };
const rows: string[] = [];
// Whatever happens, stop the targets and everything prepareInfrastructure started.
try {
  for (const [scenario, benchKeys] of [
    ["(a) 1 key", keys.slice(0, 1)],
    ["(b) 10 keys", keys],
  ] as const) {
    // Warm both (JIT, key caches), then measure them back to back.
    for (const server of Object.values(servers)) wrk(server.port, benchKeys, "2");
    const bare = wrk(servers.bare.port, benchKeys, DURATION);
    const full = wrk(servers.full.port, benchKeys, DURATION);
    if (full.errors > 0) throw new Error(`${full.errors} non-2xx responses from the full app`);
    const fmt = (r: Result) =>
      `${Math.round(r.rps).toLocaleString("en-US")} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
    rows.push(
      `| ${scenario} | ${fmt(bare)} | ${fmt(full)} | ${(full.rps / bare.rps).toFixed(2)} | ${(full.p99 / bare.p99).toFixed(2)} |`,
    );
  }

  console.log(`\nGET /api/v1/account, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  console.log("| scenario | bare Elysia | full chain (auth + rate limit + logs) | throughput ratio | p99 ratio |");
  console.log("|---|---|---|---|---|");
  for (const row of rows) console.log(row);
} finally {
  clearInterval(trim);
  await Promise.all(Object.values(servers).map((server) => stopProcess(server.child)));
  for (const key of await deps.redis.keys(`${env.REDIS_PREFIX}:*`)) await deps.redis.del(key);
  await closeDeps(deps);
  await dropDatabase(env.DATABASE_URL as string);
  await stopAll(infra.managed);
  await rm(dataDir, { recursive: true, force: true });
}
