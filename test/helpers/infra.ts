import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QueueEvents } from "bullmq";
import { prepareInfrastructure } from "../../scripts/lib/boot";
import { freePort, type Managed, stopAll } from "../../scripts/lib/processes";
import { createMeili } from "../../search-index/client";
import { dropIndexes } from "../../search-index/indexes";
import { closeDeps, createDeps, type Deps } from "../../shared/context/deps";
import { type Env, LOCAL_DATABASE_URL, parseEnv, redisTarget } from "../../shared/core/env";
import { createLogger, type Logger } from "../../shared/core/log";
import type { PlanTable } from "../../shared/core/plans";
import { createRedis, queuePrefix, redisReady } from "../../shared/core/redis";
import { dropDatabase } from "../../shared/db/sql";
import type { QueueName } from "../../shared/jobs/catalog";
import { deletePrefix } from "./redisKeys";

/**
 * One isolated world per `bun test` run: its own PostgreSQL database, Redis key prefix and
 * Meilisearch server (own port and data directory), so tests never touch demo data and two runs
 * cannot collide. Real servers throughout; nothing of ours is stubbed.
 */
interface TestWorld {
  env: Env;
  dataDir: string;
  managed: Managed[];
  deps: Deps;
}

let world: Promise<TestWorld> | undefined;

export const RUN_ID = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Lines the service logged during the test run (tests may assert on them; nothing is printed). */
export const logLines: string[] = [];
export const testLog: Logger = createLogger("debug", {}, (line) => {
  logLines.push(line);
});

/**
 * The suite signs up hundreds of accounts, registers hundreds of OAuth clients and opens share links
 * from one address; the tests of those per-address limits set their own.
 */
const BURST_LIMITS = {
  SIGNUPS_PER_ADDRESS_PER_HOUR: "100000",
  OAUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR: "100000",
  SHARE_LINK_REQUESTS_PER_ADDRESS_PER_MINUTE: "100000",
};

async function build(): Promise<TestWorld> {
  const dataDir = await mkdtemp(join(tmpdir(), "phs-test-"));
  const base = new URL(process.env.DATABASE_URL ?? LOCAL_DATABASE_URL);
  base.pathname = `/phs_test_${RUN_ID}`;
  const env = parseEnv({
    NODE_ENV: "test",
    DATABASE_URL: base.toString(),
    REDIS_URL: process.env.REDIS_URL,
    REDIS_PREFIX: `t${RUN_ID}`,
    MEILI_INDEX_PREFIX: `t${RUN_ID}_`,
    MEILI_PORT: String(freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...BURST_LIMITS,
  });
  const infra = await prepareInfrastructure(env);
  const deps = createDeps(infra.env, { log: testLog });
  await redisReady(deps.redis);
  return { env: infra.env, dataDir, managed: infra.managed, deps };
}

export function testWorld(): Promise<TestWorld> {
  world ??= build();
  return world;
}

/** The shared deps, optionally with another plan table (e.g. tiny hourly limits). */
export async function testDeps(overrides: { plans?: PlanTable } = {}): Promise<Deps> {
  const { deps } = await testWorld();
  return { ...deps, ...overrides };
}

export async function teardownWorld(): Promise<void> {
  if (!world) return;
  const { env, deps, managed, dataDir } = await world;
  await closeDeps(deps);
  await dropIndexes(createMeili(env.MEILI_URL as string, env.MEILI_MASTER_KEY), env.MEILI_INDEX_PREFIX).catch(() => {});
  await dropDatabase(env.DATABASE_URL as string);
  await deletePrefix(redisTarget(env), env.REDIS_PREFIX);
  await stopAll(managed);
  await rm(dataDir, { recursive: true, force: true });
}

/** The environment a child process (a CLI, a bench target) needs to use the same servers and prefixes. */
export function processEnvFor(env: Env): Record<string, string | undefined> {
  return {
    ...process.env,
    DATABASE_URL: env.DATABASE_URL,
    REDIS_CLUSTER_NODES: env.REDIS_CLUSTER_NODES,
    REDIS_PREFIX: env.REDIS_PREFIX,
    MEILI_URL: env.MEILI_URL,
    MEILI_MASTER_KEY: env.MEILI_MASTER_KEY,
    ...BURST_LIMITS,
    MEILI_INDEX_PREFIX: env.MEILI_INDEX_PREFIX,
  };
}

/** A queue's event stream on its own connection, ready to wait on jobs (`job.waitUntilFinished`). */
export async function queueEventsFor(deps: Deps, queue: QueueName): Promise<QueueEvents> {
  const events = new QueueEvents(queue, {
    connection: createRedis(redisTarget(deps.env), "worker"),
    prefix: queuePrefix(deps.env.REDIS_PREFIX, queue),
  });
  await events.waitUntilReady();
  return events;
}
