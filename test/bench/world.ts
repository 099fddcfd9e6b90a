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

/** An isolated database, Redis prefix and Meilisearch for one bench run, removed at the end. */
export async function benchWorld(): Promise<{
  env: Env;
  deps: Deps;
  childEnv: Record<string, string | undefined>;
  /** The Meilisearch server this run started, if any (for CPU accounting). */
  meiliPid: number | undefined;
  cleanup: () => Promise<void>;
}> {
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

/** Starts a bench target (`test/bench/servers.ts <mode>`) on a free port. */
/**
 * Loads the demo papers and MONDO terms into a bench world the way `bun run start` does: the CLIs
 * enqueue, and workers that the caller has started do the work.
 */
export async function loadDemoData(childEnv: Record<string, string | undefined>): Promise<void> {
  for (const [script, file] of [
    ["scripts/papers-ingest.ts", DEMO_PAPERS],
    ["scripts/mondo-load.ts", DEMO_CONDITIONS],
  ] as const) {
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
): Promise<{ summary: { records: number; seconds: number }; sources: SourcePaper[] }> {
  const ingest = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", file], {
    env: childEnv,
    stdout: "pipe",
    stderr: "ignore",
  });
  if ((await ingest.exited) !== 0) throw new Error("papers:ingest failed");
  const summary = JSON.parse(await new Response(ingest.stdout).text()) as { records: number; seconds: number };
  const bytes = await Bun.file(file).bytes();
  const text = new TextDecoder().decode(file.endsWith(".gz") ? Bun.gunzipSync(bytes) : bytes);
  return { summary, sources: text.split("\n").filter(Boolean).map(parseSourceLine) };
}

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
