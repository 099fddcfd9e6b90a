import { chmodSync, chownSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { launchMeili } from "../../scripts/lib/meili";
import { freePort, StartupError, stopProcess, tcpOpen, waitFor } from "../../scripts/lib/processes";
import type { Deps } from "../../shared/context/deps";
import type { Env } from "../../shared/core/env";
import { migrate } from "../../shared/db/migrate";
import { createSql, ensureDatabase } from "../../shared/db/sql";
import { createTestAccount, type TestAccount } from "./http";

/**
 * Servers a fault-injection test may stop, kill and restart: a private redis-server, a private
 * PostgreSQL cluster and a private Meilisearch, each on its own free port and temp directory, so the
 * machine's shared servers (which other test files use) are never touched. Plus real API and worker
 * processes, and a load generator that records every request's outcome.
 */

/** How long one request may take, at most, while a dependency is down (the "never hangs" bound). */
export const REQUEST_DEADLINE_MS = 15_000;

/**
 * Outages per fault test and how long each lasts. `bun run test` runs one short outage;
 * `bun run test:long` sets FAULT_ROUNDS and FAULT_OUTAGE_MS for repeated, longer ones.
 */
export const FAULT_ROUNDS = Math.max(1, Number(process.env.FAULT_ROUNDS ?? 1));
export const FAULT_OUTAGE_MS = Math.max(500, Number(process.env.FAULT_OUTAGE_MS ?? 3000));
/** A fault test's time limit: the fixed part plus each outage with room for its recovery. */
export const FAULT_TEST_TIMEOUT_MS = 60_000 + (FAULT_ROUNDS - 1) * 15_000 + FAULT_ROUNDS * FAULT_OUTAGE_MS;

async function tempDir(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `phs-fault-${name}-`));
}

export interface PrivateServer {
  url: string;
  port: number;
  /** Stops the server (how depends on the server); resolves when it no longer accepts connections. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data. */
  destroy(): Promise<void>;
}

/**
 * A redis-server without persistence: a restart comes back empty, as after a failover. `signal`
 * reaches the process itself (SIGSTOP/SIGCONT: a Redis that is up but silent).
 */
export async function privateRedis(): Promise<PrivateServer & { signal(signal: "SIGSTOP" | "SIGCONT"): void }> {
  const port = freePort();
  let child: Subprocess | undefined;
  const start = async () => {
    child = Bun.spawn(
      ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdout: "ignore", stderr: "ignore" },
    );
    await waitFor("private redis", () => tcpOpen("127.0.0.1", port));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    signal: (signal) => child?.kill(signal),
    stop: async () => {
      if (child) await stopProcess(child);
    },
    destroy: async () => {
      if (child) await stopProcess(child);
    },
  };
}

const PG_BIN = "/usr/lib/postgresql/15/bin";

/**
 * Runs a PostgreSQL tool as the `postgres` user when we are root (PostgreSQL refuses to run as root).
 * Asynchronous: during a fault test the event loop keeps recording outcomes with their real times
 * while pg_ctl stops or starts the server (a synchronous spawn froze it meanwhile).
 */
async function pgTool(args: string[]): Promise<{ ok: boolean; output: string }> {
  const command = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { ok: exitCode === 0, output: `${stdout}${stderr}`.trim() };
}

/**
 * A PostgreSQL 15 cluster of this test's own (initdb into a temp directory, trust auth on loopback),
 * with `database` created and migrated. `stop()` is `pg_ctl stop -m immediate`: the server dies
 * without a checkpoint, like a crash, and recovers from its WAL on `start()`.
 */
export async function privatePostgres(database = "faults"): Promise<PrivateServer> {
  const dir = await tempDir("pg");
  const data = join(dir, "data");
  if (process.getuid?.() === 0) {
    chownSync(dir, Number((await pgTool(["id", "-u"])).output), Number((await pgTool(["id", "-g"])).output));
  }
  chmodSync(dir, 0o700);
  const init = await pgTool([
    `${PG_BIN}/initdb`,
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  if (!init.ok) throw new StartupError(`initdb failed: ${init.output}`);
  const port = freePort();
  const ctl = (...args: string[]) => pgTool([`${PG_BIN}/pg_ctl`, "-D", data, ...args]);
  const start = async () => {
    const started = await ctl(
      "-o",
      `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off`,
      "-l",
      join(dir, "server.log"),
      "-w",
      "start",
    );
    if (!started.ok) throw new StartupError(`pg_ctl start failed: ${started.output}`);
    await waitFor("private PostgreSQL", () => tcpOpen("127.0.0.1", port));
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;
  await ensureDatabase(url);
  const sql = createSql(url, { max: 1 });
  await migrate(sql).finally(() => sql.end({ timeout: 5 }));
  return {
    url,
    port,
    start,
    stop: async () => {
      const stopped = await ctl("-m", "immediate", "-w", "stop");
      if (!stopped.ok) throw new Error(`pg_ctl stop failed: ${stopped.output}`);
    },
    destroy: async () => {
      await ctl("-m", "immediate", "-w", "stop");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Meilisearch server of this test's own; a restart keeps its data (same directory and key). */
export async function privateMeili(): Promise<PrivateServer & { masterKey: string }> {
  const dir = await tempDir("meili");
  const port = freePort();
  const masterKey = `fault-${crypto.randomUUID()}`;
  let child: Subprocess | undefined;
  const start = async () => {
    child = (await launchMeili({ dir, port, masterKey })).process;
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    masterKey,
    start,
    stop: async () => {
      if (child) await stopProcess(child);
    },
    destroy: async () => {
      if (child) await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

let logDir: Promise<string> | undefined;

/** One directory for the service logs of a test file (removed by `removeServiceLogs`). */
function serviceLogDir(): Promise<string> {
  logDir ??= tempDir("logs");
  return logDir;
}

/** Deletes the service logs; a test file calls it in afterAll, once its processes are stopped. */
export async function removeServiceLogs(): Promise<void> {
  if (!logDir) return;
  const dir = await logDir;
  logDir = undefined;
  await rm(dir, { recursive: true, force: true });
}

export interface Service {
  child: Subprocess;
  url: string;
  /** What the process wrote to stdout and stderr (for failure messages). */
  log: () => Promise<string>;
}

/**
 * A real `bun api/server.ts` or `bun workers/main.ts` with this environment. Output goes to a file,
 * so a failing test can show what the process said.
 */
export async function spawnService(kind: "api" | "workers", env: Record<string, string | undefined>): Promise<Service> {
  const logFile = join(await serviceLogDir(), `${kind}-${crypto.randomUUID()}.log`);
  const port = kind === "api" ? freePort() : 0;
  const child = Bun.spawn([process.execPath, kind === "api" ? "api/server.ts" : "workers/main.ts"], {
    env: { LOG_LEVEL: "warn", ...env, ...(kind === "api" ? { PORT: String(port) } : {}) },
    stdout: Bun.file(logFile),
    stderr: Bun.file(logFile),
  });
  const log = () =>
    Bun.file(logFile)
      .text()
      .catch(() => "");
  if (kind === "api") {
    await waitFor("API process", async () => {
      if (child.exitCode !== null) throw new StartupError(`API exited (${child.exitCode}): ${await log()}`);
      return tcpOpen("127.0.0.1", port);
    });
  }
  return { child, url: `http://127.0.0.1:${port}`, log };
}

/** Waits for a process to exit; resolves with its exit code, or undefined if it outlives `timeoutMs`. */
export async function exitWithin(child: Subprocess, timeoutMs: number): Promise<number | null | undefined> {
  const timer = Bun.sleep(timeoutMs).then(() => undefined);
  return Promise.race([child.exited.then(() => child.exitCode), timer]);
}

export interface Outcome {
  writer: number;
  /** HTTP status, or 0 when the request failed without one (refused, reset, past the deadline). */
  status: number;
  ms: number;
  /** When the request was sent, in ms since the load started. */
  sentAt: number;
  retryAfter: string | null;
  errorCode?: string;
  errorMessage?: string;
  /** The created resource's id, for 2xx answers that return one. */
  id?: string;
  failure?: string;
}

/**
 * Runs `writers` concurrent request loops until `stop()` is called, or a loop has sent `maxEach`
 * requests or had `maxOk` successes. Each request gets REQUEST_DEADLINE_MS; every outcome is recorded, nothing is retried.
 * A short pause between a loop's requests keeps two cores from spinning on fast 503s.
 */
export function runLoad(
  writers: number,
  send: (writer: number, signal: AbortSignal) => Promise<Response>,
  options: { maxEach?: number; maxOk?: number; pauseMs?: number } = {},
) {
  const outcomes: Outcome[] = [];
  const started = performance.now();
  let stopping = false;
  const loop = async (writer: number) => {
    let ok = 0;
    for (
      let n = 0;
      !stopping &&
      n < (options.maxEach ?? Number.POSITIVE_INFINITY) &&
      ok < (options.maxOk ?? Number.POSITIVE_INFINITY);
      n++
    ) {
      const sentAt = performance.now();
      const outcome: Outcome = { writer, status: 0, ms: 0, sentAt: sentAt - started, retryAfter: null };
      try {
        const response = await send(writer, AbortSignal.timeout(REQUEST_DEADLINE_MS));
        outcome.status = response.status;
        outcome.retryAfter = response.headers.get("retry-after");
        const body = (await response.json().catch(() => undefined)) as
          | { id?: string; error?: { code?: string; message?: string; details?: unknown } }
          | undefined;
        if (typeof body?.id === "string") outcome.id = body.id;
        if (body?.error?.code) outcome.errorCode = body.error.code;
        if (body?.error?.message)
          outcome.errorMessage = `${body.error.message} ${JSON.stringify(body.error.details ?? "")}`;
      } catch (error) {
        outcome.failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      outcome.ms = performance.now() - sentAt;
      if (outcome.status >= 200 && outcome.status < 300) ok += 1;
      outcomes.push(outcome);
      await Bun.sleep(options.pauseMs ?? 20);
    }
  };
  const running = Promise.all(Array.from({ length: writers }, (_, writer) => loop(writer)));
  return {
    outcomes,
    elapsed: () => performance.now() - started,
    async stop(): Promise<Outcome[]> {
      stopping = true;
      await running;
      return outcomes;
    },
  };
}

export interface OutageWindow {
  /** ms into the load: the server had stopped; its start was issued; it was up again. */
  downAt: number;
  startingAt: number;
  restartedAt: number;
  outageMs: number;
  /** From the restart to the first success sent after it. */
  recoveryMs: number;
}

/**
 * FAULT_ROUNDS times: stops the server, waits FAULT_OUTAGE_MS, starts it again and waits for the
 * first success sent after the restart (the API recovering by itself), then lets the load run on.
 */
export async function outages(server: PrivateServer, load: ReturnType<typeof runLoad>): Promise<OutageWindow[]> {
  const windows: OutageWindow[] = [];
  for (let round = 0; round < FAULT_ROUNDS; round++) {
    const stoppedAt = load.elapsed();
    await server.stop();
    const downAt = load.elapsed();
    await Bun.sleep(FAULT_OUTAGE_MS);
    const startingAt = load.elapsed();
    await server.start();
    const restartedAt = load.elapsed();
    let first: Outcome | undefined;
    await waitFor(
      "recovery",
      async () => {
        first = load.outcomes.find((o) => o.sentAt >= restartedAt && o.status >= 200 && o.status < 300);
        return first !== undefined;
      },
      30_000,
    );
    const done = first as Outcome;
    windows.push({
      downAt,
      startingAt,
      restartedAt,
      outageMs: Math.round(restartedAt - stoppedAt),
      recoveryMs: Math.round(done.sentAt + done.ms - restartedAt),
    });
    await Bun.sleep(500);
  }
  return windows;
}

/**
 * Outcomes sent once the server was gone and answered before its start was issued. Not "before it
 * was up": a server accepts connections before its start command returns, so a request held in the
 * API's reconnect wait can rightly succeed in between.
 */
export function duringOutages(outcomes: Outcome[], windows: OutageWindow[]): Outcome[] {
  return outcomes.filter((o) => windows.some((w) => o.sentAt > w.downAt && o.sentAt + o.ms < w.startingAt));
}

/** Counts by status, the slowest request and the 503s without Retry-After: what a fault test reports. */
export function summarize(outcomes: Outcome[]) {
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  const slowest = Math.round(Math.max(0, ...outcomes.map((o) => o.ms)));
  const unavailable = outcomes.filter((o) => o.status === 503);
  return {
    requests: outcomes.length,
    byStatus,
    slowestMs: slowest,
    unavailableWithoutRetryAfter: unavailable.filter((o) => !(Number(o.retryAfter) > 0)).length,
    unexpected: outcomes.filter((o) => !(o.status >= 200 && o.status < 300) && o.status !== 503),
  };
}

/** The child environment for `env` with its own Redis prefix (queues and caches apart from other files). */
export function ownPrefix(env: Env, suffix: string): string {
  return `${env.REDIS_PREFIX}${suffix}`.slice(0, 32);
}

/** One request to a real API process, with the deadline unless the caller brings a signal. */
export function request(
  api: Service,
  path: string,
  options: {
    method?: string;
    key?: string;
    body?: unknown;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  } = {},
) {
  return fetch(`${api.url}${path}`, {
    method: options.method ?? "GET",
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal ?? AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });
}

export interface HealthWriter extends TestAccount {
  trackerId: string;
}

/**
 * A pro account whose key is known to the API's Redis prefix, with consent given and one health
 * log, set up through the API process itself. `deps` are where the account is written (the API's
 * PostgreSQL and Redis).
 */
export async function healthWriter(api: Service, deps: Deps, prefix: string): Promise<HealthWriter> {
  const account = await createTestAccount({ ...deps, env: { ...deps.env, REDIS_PREFIX: prefix } }, "pro");
  const key = account.apiKey;
  const profile = await request(api, "/api/v1/health/profile", {
    method: "POST",
    key,
    body: { consentGiven: true, conditions: [], medications: [] },
  });
  if (profile.status !== 200) throw new Error(`profile save failed: ${profile.status} ${await profile.text()}`);
  const tracker = await request(api, "/api/v1/health/trackers", {
    method: "POST",
    key,
    body: { title: "Fault log", kind: "acute" },
  });
  if (tracker.status !== 201) throw new Error(`log create failed: ${tracker.status} ${await tracker.text()}`);
  return { ...account, trackerId: ((await tracker.json()) as { id: string }).id };
}

/** Adds one entry to the writer's log (few enough per log that the newest-180 cap never drops one). */
export function addEntry(api: Service, w: { apiKey: string; trackerId: string }, signal?: AbortSignal) {
  return request(api, `/api/v1/health/trackers/${w.trackerId}/entries`, {
    method: "POST",
    key: w.apiKey,
    body: { severity: 5, symptoms: ["cough"] },
    signal,
  });
}
