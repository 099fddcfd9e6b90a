import { createSearchCache, type SearchCache } from "../../search-index/answerCache";
import { createMeili, type Meilisearch } from "../../search-index/client";
import { meiliConnection } from "../../search-index/config";
import { type Env, redisTarget } from "../core/env";
import { createRedis, type Redis } from "../core/redis";
import { searchCacheBytes, searchCacheEvents } from "../metrics/service";

/**
 * The search layer's clients for this process. search-index/ reads no configuration and records no
 * metrics of its own (it imports nothing from shared/), so this is where the environment, the
 * Redis connections and the service's metrics are handed to it.
 */
export function meiliFor(env: Env): Meilisearch {
  const { url, apiKey } = meiliConnection(env);
  return createMeili(url, apiKey);
}

/** The process's answer cache, on `redis` (fail-fast) plus a subscriber connection of its own. */
export function searchCacheFor(env: Env, redis: Redis): SearchCache {
  const bytes = searchCacheBytes.labels();
  return createSearchCache({
    redis,
    // Subscribers wait through an outage rather than fail: the `worker` role.
    subscriber: () => createRedis(redisTarget(env), "worker"),
    prefix: env.REDIS_PREFIX,
    settings: {
      maxBytes: env.SEARCH_CACHE_MAX_BYTES,
      ttlMs: env.SEARCH_CACHE_TTL_MS,
      freshForMs: env.SEARCH_CACHE_FRESH_MS,
    },
    onEvent: (event) => searchCacheEvents.labels(event).inc(),
    onBytes: (held) => bytes.set(held),
  });
}
