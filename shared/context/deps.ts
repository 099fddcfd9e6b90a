import { Cluster } from "ioredis";
import type { SearchCache } from "../../search-index/answerCache";
import type { Meilisearch } from "../../search-index/client";
import { databaseUrl, type Env, redisTarget } from "../core/env";
import { createLogger, type Logger } from "../core/log";
import { createStartPacer, type StartPacer } from "../core/pacing";
import { PLANS, type PlanTable } from "../core/plans";
import { createRedis, duplicateRedis, type Redis } from "../core/redis";
import { createSql, type Sql } from "../db/sql";
import { type AuthEvents, createAuthEvents } from "../events/authEvents";
import { createJobEvents, type JobEvents } from "../events/jobEvents";
import { createTurnSubscriber, type TurnSubscriber } from "../events/turnSubscriber";
import { closeQueues, createQueues, producerOf, type Queues } from "../jobs/queue";
import { type ModelEntry, modelCatalog } from "../llm/models";
import { type UploadConfig, uploadConfig } from "../storage/config";
import { meiliFor, searchCacheFor } from "./searchIndex";

/**
 * The long-lived clients a process holds, built once at boot and passed to services as arguments.
 * `plans` is here (not imported by services) so tests can run with small limits.
 */
export interface Deps {
  env: Env;
  sql: Sql;
  /** Fail-fast connection for request paths (no offline queue). */
  redis: Redis;
  meili: Meilisearch;
  log: Logger;
  plans: PlanTable;
  queues: Queues;
  /** Key revocations and plan changes, announced by other processes. */
  authEvents: AuthEvents;
  /** Completion of jobs a request waits for (reference lookups). */
  jobEvents: JobEvents;
  /** Live chat-turn events for SSE clients (one shared subscriber connection per process). */
  turnSubscriber: TurnSubscriber;
  /** New chat turns start a few per event-loop turn, across every surface (core/pacing.ts). */
  turnStarts: StartPacer;
  /** Closers of the chat streams this process relays (api/sse/turnStream.ts), ended at shutdown. */
  turnRelays: Set<() => void>;
  /** Where uploads are stored and how their URLs are signed. */
  uploads: UploadConfig;
  /** The health models this deployment runs (`models` here so tests can add entries). */
  models: readonly ModelEntry[];
  /** Paper-search answers of this process, cleared when an index changes (search-index/answerCache.ts). */
  searchCache: SearchCache;
}

export function createDeps(env: Env, overrides: Partial<Pick<Deps, "plans" | "log" | "models">> = {}): Deps {
  const redis = createRedis(redisTarget(env), "request");
  return {
    env,
    sql: createSql(databaseUrl(env)),
    redis,
    meili: meiliFor(env),
    log: overrides.log ?? createLogger(env.LOG_LEVEL),
    plans: overrides.plans ?? PLANS,
    // BullMQ producers use a fail-fast connection: an enqueue during an outage errors (→ 503) instead
    // of hanging. On a cluster an enqueue then waits for a replica (WAIT), which holds its connection
    // meanwhile, so the producers get one of their own there.
    queues: createQueues(redis instanceof Cluster ? duplicateRedis(redis, {}) : redis, env.REDIS_PREFIX),
    authEvents: createAuthEvents(redisTarget(env), env.REDIS_PREFIX, redis),
    jobEvents: createJobEvents(redisTarget(env), env.REDIS_PREFIX),
    turnSubscriber: createTurnSubscriber(redisTarget(env), env.REDIS_PREFIX),
    turnStarts: createStartPacer(),
    turnRelays: new Set(),
    uploads: uploadConfig(env),
    models: overrides.models ?? modelCatalog(env),
    searchCache: searchCacheFor(env, redis),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await closeQueues(deps.queues).catch(() => {});
  if (producerOf(deps.queues) !== deps.redis) producerOf(deps.queues).disconnect();
  await deps.authEvents.close();
  await deps.jobEvents.close().catch(() => {});
  await deps.turnSubscriber.close();
  await deps.searchCache.close();
  await deps.sql.end({ timeout: 5 });
  deps.redis.disconnect();
}
