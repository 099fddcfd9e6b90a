import { createMeili } from "../../search-index/client";
import { localMeiliDir, localMeiliUrl, masterKeyFile } from "../../search-index/config";
import { databaseUrl, type Env, redisUrl } from "../../shared/core/env";
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
    track(await ensureRedis(redisUrl(env), Boolean(env.REDIS_URL), env.DATA_DIR));
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
