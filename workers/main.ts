import { applyIndexSettings } from "../search-index/settings";
import { closeDeps, createDeps } from "../shared/deps";
import { loadEnv } from "../shared/env";
import { redisReady } from "../shared/redis";
import { startWorkers } from "./runner";

const env = loadEnv();
const deps = createDeps(env);
await redisReady(deps.redis, 30_000);
// Workers own indexing, so they make sure the index settings are current (idempotent) before starting.
await applyIndexSettings(deps.meili, env.MEILI_INDEX_PREFIX);
const workers = await startWorkers(deps);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  deps.log.info("workers stopping", { signal });
  await workers.close();
  await closeDeps(deps);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
