import { createMeili } from "../../search-index/client";
import { localMeiliDir, localMeiliUrl, masterKeyFile } from "../../search-index/config";
import { databaseUrl, type Env, redisTarget, redisUrl } from "../../shared/core/env";
import { createRedis, redisReady } from "../../shared/core/redis";
import { redisSetupProblem } from "../../shared/core/redisState";
import { migrate } from "../../shared/db/migrate";
import { createSql, ensureDatabase } from "../../shared/db/sql";
import { applyIndexSettings } from "../../shared/indexing/settings";
import { ensureMasterKey, launchMeili, meiliHealthy } from "./meili";
import { ensurePostgres } from "./postgres";
import { type Managed, StartupError, stopAll, tcpOpen } from "./processes";
import { ensureRedis } from "./redis";

export interface Infrastructure {
  /** The environment with the Meilisearch URL and key filled in, for child processes. */
  env: Env;
  /** Processes this run started; stop them on exit. */
  managed: Managed[];
  migrations: string[];
}

/**
 * Brings up everything the service needs, in order: PostgreSQL, Redis, Meilisearch, the
 * database and its migrations, the index settings. Prefers explicit URLs; otherwise uses or
 * starts the local defaults. Every process it starts is pushed onto `managed` at once, so a caller
 * interrupted meanwhile can stop them; on failure it stops them itself.
 */
export async function prepareInfrastructure(env: Env, managed: Managed[] = []): Promise<Infrastructure> {
  const track = (item: Managed | undefined) => item && managed.push(item);
  try {
    track(await ensurePostgres(databaseUrl(env), Boolean(env.DATABASE_URL), env.DATA_DIR));
    // A cluster is never started here: its nodes are the operator's.
    if (!env.REDIS_CLUSTER_NODES) track(await ensureRedis(redisUrl(env), Boolean(env.REDIS_URL), env.DATA_DIR));
    await checkRedisSetup(env);
    const meili = await ensureMeili(env);
    track(meili.managed);
    const resolved: Env = { ...env, MEILI_URL: meili.url, MEILI_MASTER_KEY: meili.apiKey };

    await ensureDatabase(databaseUrl(env));
    const sql = createSql(databaseUrl(env), { max: 1 });
    const migrations = await migrate(sql).finally(() => sql.end({ timeout: 5 }));
    await applyIndexSettings(createMeili(meili.url, meili.apiKey), env.MEILI_INDEX_PREFIX);
    return { env: resolved, managed, migrations };
  } catch (error) {
    await stopAll(managed);
    throw error;
  }
}

/** Refuses a Redis (or any node of a cluster) the service cannot run on, with one line saying why. */
async function checkRedisSetup(env: Env): Promise<void> {
  const redis = createRedis(redisTarget(env), "request");
  try {
    await redisReady(redis, 10_000).catch(() => {
      const where = env.REDIS_CLUSTER_NODES
        ? `Redis Cluster at ${env.REDIS_CLUSTER_NODES} (REDIS_CLUSTER_NODES)`
        : "Redis";
      throw new StartupError(`${where} is not reachable or not ready.`);
    });
    const problem = await redisSetupProblem(redis);
    if (problem) throw new StartupError(problem);
  } finally {
    redis.disconnect();
  }
}

async function ensureMeili(env: Env): Promise<{ url: string; apiKey?: string; managed?: Managed }> {
  if (env.MEILI_URL) {
    if (!(await meiliHealthy(env.MEILI_URL, env.MEILI_MASTER_KEY))) {
      throw new StartupError(
        `Meilisearch at ${env.MEILI_URL} (MEILI_URL) is not reachable or rejects MEILI_MASTER_KEY.`,
      );
    }
    return { url: env.MEILI_URL, apiKey: env.MEILI_MASTER_KEY };
  }
  const apiKey = env.MEILI_MASTER_KEY ?? (await ensureMasterKey(masterKeyFile(env)));
  const url = localMeiliUrl(env);
  const urlPort = env.MEILI_PORT;
  // A server left running by an earlier start with the same data directory answers to our key.
  if (await meiliHealthy(url, apiKey)) return { url, apiKey };
  if (await tcpOpen("127.0.0.1", Number(urlPort))) {
    throw new StartupError(
      `Port ${urlPort} is taken by something that is not our Meilisearch; free it or set MEILI_URL.`,
    );
  }
  const managed = await launchMeili({ dir: localMeiliDir(env), port: urlPort, masterKey: apiKey });
  return { url, apiKey, managed };
}
