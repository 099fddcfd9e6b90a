import IORedis, { Cluster, type ClusterNode, type ClusterOptions, type RedisOptions } from "ioredis";

/** A connection: one Redis server's, or a Redis Cluster's (REDIS_CLUSTER_NODES). */
export type Redis = IORedis | Cluster;

/** Where Redis is: a server's URL, or the seed nodes of a cluster (the client finds the rest). */
export type RedisTarget = string | { cluster: ClusterNode[] };

/**
 * Connection roles, configured as BullMQ's production guide says:
 * - `request`: serves HTTP requests. No offline queue, one retry and a command timeout, so a
 *   request fails fast (→ 503) while Redis is away or stalled instead of hanging; it reconnects
 *   by itself.
 * - `worker`: BullMQ workers and subscribers. `maxRetriesPerRequest: null` is required by
 *   BullMQ's blocking commands; the connection waits for Redis to come back.
 */
export type RedisRole = "request" | "worker";

/** A stalled Redis (not just a closed one) must also turn into a 503 rather than a hung request. */
export const REQUEST_COMMAND_TIMEOUT_MS = 1000;

/** Per-server options of a role (on a cluster they apply to each node's connection). */
function serverOptions(role: RedisRole): RedisOptions {
  return role === "request"
    ? { connectTimeout: 5000, maxRetriesPerRequest: 1, commandTimeout: REQUEST_COMMAND_TIMEOUT_MS }
    : { connectTimeout: 5000, maxRetriesPerRequest: null };
}

const reconnectDelay = (attempt: number) => Math.min(attempt * 200, 2000);

export function createRedis(target: RedisTarget, role: RedisRole, extra: RedisOptions = {}): Redis {
  const redis =
    typeof target === "string"
      ? new IORedis(target, {
          ...serverOptions(role),
          retryStrategy: reconnectDelay,
          lazyConnect: false,
          enableOfflineQueue: role !== "request",
          ...extra,
        })
      : new Cluster(target.cluster, clusterOptions(role, extra));
  // Without a listener ioredis prints every reconnect failure; callers see errors on commands.
  redis.on("error", () => {});
  if (redis instanceof Cluster) redis.on("node error", () => {});
  return redis;
}

/**
 * A cluster client of a role. Replica reads stay off (a read must see the write before it). While a
 * primary fails over, a request's command is retried on the new slot owner for about a second
 * (8 × 150 ms), within its own timeout, before it fails (→ 503); a worker's waits for the cluster.
 * Sharded pub/sub (SSUBSCRIBE) needs a subscriber connection per primary, made when first used.
 */
function clusterOptions(role: RedisRole, extra: RedisOptions): ClusterOptions {
  return {
    scaleReads: "master",
    enableOfflineQueue: role !== "request",
    clusterRetryStrategy: reconnectDelay,
    retryDelayOnFailover: 150,
    retryDelayOnClusterDown: 150,
    maxRedirections: role === "request" ? 8 : 64,
    slotsRefreshInterval: 5000,
    shardedSubscribers: role === "worker",
    redisOptions: { ...serverOptions(role), ...extra },
  };
}

/** A second connection like `redis` with other per-server options (a blocking waiter's). */
export function duplicateRedis(redis: Redis, options: RedisOptions & { enableOfflineQueue?: boolean }): Redis {
  if (!(redis instanceof Cluster)) return redis.duplicate(options);
  const { enableOfflineQueue, ...perServer } = options;
  return redis.duplicate([], {
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    redisOptions: { ...redis.options.redisOptions, ...perServer },
  });
}

/** Waits until a connection is ready, or throws after `timeoutMs`. */
export async function redisReady(redis: Redis, timeoutMs = 5000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error("Redis did not become ready"));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}

/**
 * Redis key names, all under the deployment's prefix. Keys that one script, transaction or
 * pipeline touches together share a hash tag (`{…}`), so on a cluster they live in one slot: an
 * account's rate-limit keys and auth versions, a turn's log, channel and word, the job metrics,
 * the search versions. Everything else is a key of its own.
 */
export function redisKeys(prefix: string) {
  return {
    /** An account's sliding-window log; its count and pause keys add a suffix (ratelimit/scripts.ts). */
    rateLimit: (accountId: string) => `${prefix}:rl:{${accountId}}`,
    /** An API key's auth version (bumped on revocation or plan change), beside its account's rate keys. */
    authVersion: (accountId: string, keyHashHex: string) => `${prefix}:authv:{${accountId}}:${keyHashHex}`,
    keyUsage: `${prefix}:keyuse`,
    /** Live chunks of one chat turn (sharded pub/sub). */
    turnChannel: (turnId: string) => `${prefix}:turn:{${turnId}}`,
    /** The same chunks, capped and expiring, for clients that connect late or reconnect. */
    turnLog: (turnId: string) => `${prefix}:turnlog:{${turnId}}`,
    /** The turn of a chat that is in progress, if any (for GET …/stream). */
    chatActiveTurn: (chatId: string) => `${prefix}:chatturn:${chatId}`,
    /** Held while a signed upload PUT stores its bytes, so two PUTs to one URL cannot both write. */
    uploadPut: (fileId: string) => `${prefix}:uploadput:${fileId}`,
  };
}

/**
 * A BullMQ queue's prefix: one hash tag per queue, so each queue's keys (which its scripts touch
 * together) share a slot while the queues spread over a cluster's primaries. Keys read
 * `<prefix>:{<queue>}:<queue>:<suffix>`.
 */
export function queuePrefix(prefix: string, queue: string): string {
  return `${prefix}:{${queue}}`;
}
