import { createMeili, type Meilisearch } from "../search-index/client";
import { meiliConnection } from "../search-index/config";
import { type AuthEvents, createAuthEvents } from "./authEvents";
import { type ModelEntry, modelCatalog } from "./chat/models";
import { createTurnSubscriber, type TurnSubscriber } from "./chat/turnEvents";
import { createSql, type Sql } from "./db/sql";
import { databaseUrl, type Env, redisUrl } from "./env";
import { createJobEvents, type JobEvents } from "./jobEvents";
import { createLogger, type Logger } from "./log";
import { PLANS, type PlanTable } from "./plans";
import { closeQueues, createQueues, type Queues } from "./queue";
import { createRedis, type Redis } from "./redis";
import { type UploadConfig, uploadConfig } from "./uploads/config";

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
  /** Where uploads are stored and how their URLs are signed. */
  uploads: UploadConfig;
  /** The health models this deployment runs (`models` here so tests can add entries). */
  models: readonly ModelEntry[];
}

export function createDeps(env: Env, overrides: Partial<Pick<Deps, "plans" | "log" | "models">> = {}): Deps {
  const { url, apiKey } = meiliConnection(env);
  const redis = createRedis(redisUrl(env), "request");
  return {
    env,
    sql: createSql(databaseUrl(env)),
    redis,
    meili: createMeili(url, apiKey),
    log: overrides.log ?? createLogger(env.LOG_LEVEL),
    plans: overrides.plans ?? PLANS,
    // BullMQ producers share the fail-fast connection: an enqueue during an outage errors (→ 503) instead of hanging.
    queues: createQueues(redis, env.REDIS_PREFIX),
    authEvents: createAuthEvents(redisUrl(env), env.REDIS_PREFIX, redis),
    jobEvents: createJobEvents(redisUrl(env), env.REDIS_PREFIX),
    turnSubscriber: createTurnSubscriber(redisUrl(env), env.REDIS_PREFIX),
    uploads: uploadConfig(env),
    models: overrides.models ?? modelCatalog(env),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await closeQueues(deps.queues).catch(() => {});
  await deps.authEvents.close();
  await deps.jobEvents.close().catch(() => {});
  await deps.turnSubscriber.close();
  await deps.sql.end({ timeout: 5 });
  deps.redis.disconnect();
}
