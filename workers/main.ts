import { announceIndexChange } from "../search-index/answerCache";
import { indexUid } from "../search-index/indexes";
import { createDeps } from "../shared/context/deps";
import { exitGracefully } from "../shared/context/shutdown";
import { loadEnv } from "../shared/core/env";
import { redisReady } from "../shared/core/redis";
import { applyIndexSettings } from "../shared/indexing/settings";
import { startWorkers } from "./runner";
import { superviseWorkerProcesses } from "./supervisor";

const env = loadEnv();
if (env.WORKER_PROCESSES > 1) {
  // This process only starts, watches and stops the worker processes (workers/supervisor.ts).
  superviseWorkerProcesses(env.WORKER_PROCESSES, import.meta.path);
} else {
  const deps = createDeps(env);
  await redisReady(deps.redis, 30_000);
  // Workers own indexing, so they make sure the index settings are current (idempotent) before starting.
  for (const name of await applyIndexSettings(deps.meili, env.MEILI_INDEX_PREFIX)) {
    deps.log.warn("search index emptied: its documents had an earlier layout", {
      index: name,
      fix: "bun run papers:reindex (bun run start does it by itself)",
    });
  }
  // New settings (or an emptied index) change answers: API processes drop what they cached.
  await announceIndexChange(deps.redis, env.REDIS_PREFIX, indexUid(env.MEILI_INDEX_PREFIX, "papers"));
  const workers = await startWorkers(deps);

  exitGracefully("workers", deps, () => workers.close());
}
