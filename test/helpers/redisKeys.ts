import { Cluster } from "ioredis";
import { createRedis, type Redis, type RedisTarget, redisReady } from "../../shared/core/redis";

/** The servers holding keys: each primary of a cluster (SCAN and KEYS see one node only), or the one server. */
function keyServers(redis: Redis): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

/** Every key name matching `pattern` on every server. */
async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const server of keyServers(redis)) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== "0");
  }
  return found;
}

/** Deletes every key under a prefix (a test run's queues and caches), one key per command so no two slots meet. */
export async function deletePrefix(target: RedisTarget, prefix: string): Promise<void> {
  const redis = createRedis(target, "worker");
  try {
    // A cluster client knows its nodes only once it is ready.
    await redisReady(redis);
    const keys = await scanKeys(redis, `${prefix}:*`);
    await Promise.all(keys.map((key) => redis.del(key)));
  } finally {
    redis.disconnect();
  }
}
