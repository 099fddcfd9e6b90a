import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareInfrastructure } from "../../scripts/lib/boot";
import { freePort, stopAll, tcpOpen, waitFor } from "../../scripts/lib/processes";
import { DEMO_PAPERS } from "../../scripts/lib/seed";
import { DEMO_CONDITIONS } from "../../scripts/lib/seedConditions";
import { closeDeps, createDeps, type Deps } from "../../shared/context/deps";
import { type Env, LOCAL_DATABASE_URL, parseEnv } from "../../shared/core/env";
import { createLogger } from "../../shared/core/log";
import { redisReady } from "../../shared/core/redis";
import { dropDatabase } from "../../shared/db/sql";
import { parseSourceLine, type SourcePaper } from "../../shared/records/paper";
import { processEnvFor } from "../helpers/infra";

export interface BenchWorld {
  env: Env;
  deps: Deps;
  childEnv: Record<string, string | undefined>;
  /** The Meilisearch server this run started, if any (for CPU accounting). */
  meiliPid: number | undefined;
  cleanup: () => Promise<void>;
}

/**
 * A world one run shares with the benches it starts (`bun run bench:quick`): its settings, and
 * whether the demo papers and MONDO terms are already in. A bench started with it in BENCH_WORLD
 * joins that world instead of building its own, and leaves it in place.
 */
export interface SharedWorld {
  settings: Record<string, string>;
  meiliPid: number | undefined;
  demoLoaded: boolean;
}

const SHARED_WORLD = "BENCH_WORLD";
const joined = process.env[SHARED_WORLD] ? (JSON.parse(process.env[SHARED_WORLD]) as SharedWorld) : undefined;

/** The environment variable that hands `shared` to a bench process. */
export function shareWorld(shared: SharedWorld): Record<string, string> {
  return { [SHARED_WORLD]: JSON.stringify(shared) };
}

/**
 * An isolated database, Redis prefix and Meilisearch for one bench run, removed at the end; or, in
 * a bench started with a shared world (BENCH_WORLD), that world, left as it is at the end.
 */
export async function benchWorld(): Promise<BenchWorld> {
  if (joined) return joinWorld(joined);
  const dataDir = await mkdtemp(join(tmpdir(), "phs-bench-"));
  const database = new URL(LOCAL_DATABASE_URL);
  database.pathname = `/phs_bench_${Date.now()}`;
  const base = parseEnv({
    DATABASE_URL: database.toString(),
    REDIS_PREFIX: `bench${Date.now()}`,
    MEILI_PORT: String(freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
  });
  const infra = await prepareInfrastructure(base);
  const deps = createDeps(infra.env, { log: createLogger("silent") });
  await redisReady(deps.redis);
  const env = infra.env;
  const childEnv = { ...processEnvFor(env), LOG_LEVEL: "info" };
  return {
    env,
    deps,
    childEnv,
    meiliPid: infra.managed.find((item) => item.name === "meilisearch")?.process.pid,
    cleanup: async () => {
      for (const key of await deps.redis.keys(`${env.REDIS_PREFIX}:*`)) await deps.redis.del(key);
      await closeDeps(deps);
      await dropDatabase(env.DATABASE_URL as string);
      await stopAll(infra.managed);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a bench process needs to join `world` (its settings; the data loaded or not). */
export function sharedWorldOf(world: BenchWorld, demoLoaded: boolean): SharedWorld {
  const { DATABASE_URL, REDIS_PREFIX, MEILI_URL, MEILI_MASTER_KEY, MEILI_INDEX_PREFIX, DATA_DIR } = world.env;
  const settings = Object.fromEntries(
    Object.entries({ DATABASE_URL, REDIS_PREFIX, MEILI_URL, MEILI_MASTER_KEY, MEILI_INDEX_PREFIX, DATA_DIR }).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
  return { settings, meiliPid: world.meiliPid, demoLoaded };
}

async function joinWorld(shared: SharedWorld): Promise<BenchWorld> {
  const env = parseEnv({ ...shared.settings, LOG_LEVEL: "info" });
  const deps = createDeps(env, { log: createLogger("silent") });
  await redisReady(deps.redis);
  return {
    env,
    deps,
    childEnv: { ...processEnvFor(env), LOG_LEVEL: "info" },
    meiliPid: shared.meiliPid,
    cleanup: () => closeDeps(deps),
  };
}

/**
 * Loads the demo papers and MONDO terms (or the papers alone) into a bench world the way `bun run
 * start` does: the CLIs enqueue, and workers that the caller has started do the work. Nothing to do
 * in a shared world that has them.
 */
export async function loadDemoData(
  childEnv: Record<string, string | undefined>,
  { conditions = true }: { conditions?: boolean } = {},
): Promise<void> {
  if (joined?.demoLoaded) return;
  const loads: [string, string][] = [["scripts/papers-ingest.ts", DEMO_PAPERS]];
  if (conditions) loads.push(["scripts/mondo-load.ts", DEMO_CONDITIONS]);
  for (const [script, file] of loads) {
    const child = Bun.spawn([process.execPath, script, file], { env: childEnv, stdout: "ignore", stderr: "ignore" });
    if ((await child.exited) !== 0) throw new Error(`${script} failed`);
  }
}

/**
 * `papers:ingest` of a file through the queue, with workers the caller has started; its summary
 * (records, seconds). The file's records as source records come with it.
 */
export async function ingestFile(
  childEnv: Record<string, string | undefined>,
  file: string,
  { reuse = false }: { reuse?: boolean } = {},
): Promise<{ summary: { records: number; seconds: number }; sources: SourcePaper[] }> {
  const sources = async () => {
    const bytes = await Bun.file(file).bytes();
    const text = new TextDecoder().decode(file.endsWith(".gz") ? Bun.gunzipSync(bytes) : bytes);
    return text.split("\n").filter(Boolean).map(parseSourceLine);
  };
  // `reuse`: a caller that needs the papers in, not the ingest timed, takes a shared world's as they are.
  if (reuse && joined?.demoLoaded && file === DEMO_PAPERS) {
    const records = await sources();
    return { summary: { records: records.length, seconds: 0 }, sources: records };
  }
  const ingest = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", file], {
    env: childEnv,
    stdout: "pipe",
    stderr: "ignore",
  });
  if ((await ingest.exited) !== 0) throw new Error("papers:ingest failed");
  const summary = JSON.parse(await new Response(ingest.stdout).text()) as { records: number; seconds: number };
  return { summary, sources: await sources() };
}

/** Starts a bench target (`test/bench/servers.ts <mode>`) on a free port. */
export async function serve(
  mode: "bare" | "full",
  childEnv: Record<string, string | undefined>,
  runtimeFlags: string[] = [],
) {
  const port = freePort();
  // Request logs go to /dev/null: the cost of writing them is measured, not the terminal's.
  const child = Bun.spawn([process.execPath, ...runtimeFlags, "test/bench/servers.ts", mode, String(port)], {
    env: childEnv,
    stdout: "ignore",
    stderr: "inherit",
  });
  await waitFor(`${mode} server`, () => tcpOpen("127.0.0.1", port));
  return { port, child };
}

export interface WrkResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs wrk with a Lua script and parses requests/s, p50, p99 (ms) and non-2xx count. */
export function wrk(
  url: string,
  script: string,
  env: Record<string, string>,
  seconds: string,
  connections: number,
  threads = 2,
): WrkResult {
  const result = Bun.spawnSync(
    ["wrk", `-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url],
    { env: { ...process.env, ...env } },
  );
  const out = result.stdout.toString();
  const ms = (label: string) => {
    const match = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) throw new Error(`wrk output without ${label}%:\n${out}\n${result.stderr.toString()}`);
    const value = Number(match[1]);
    return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
  };
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (errors > 0) process.stderr.write(result.stderr.toString());
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: ms("50"),
    p99: ms("99"),
    errors,
  };
}

export function formatResult(r: WrkResult): string {
  return `${Math.round(r.rps).toLocaleString("en-US")} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux; 0 elsewhere). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the `(comm)`: utime and stime are the 12th and 13th, in clock ticks of 10 ms.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
