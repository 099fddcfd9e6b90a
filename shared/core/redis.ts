import Redis, { type RedisOptions } from "ioredis";

export type { Redis };

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

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  };
  const byRole: RedisOptions =
    role === "request"
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REQUEST_COMMAND_TIMEOUT_MS }
      : { enableOfflineQueue: true, maxRetriesPerRequest: null };
  const redis = new Redis(url, { ...common, ...byRole, ...extra });
  // Without a listener ioredis prints every reconnect failure; callers see errors on commands.
  redis.on("error", () => {});
  return redis;
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

/** Redis key names, all under the deployment's prefix. */
export function redisKeys(prefix: string) {
  return {
    rateLimit: (accountId: string) => `${prefix}:rl:${accountId}`,
    authVersion: (keyHashHex: string) => `${prefix}:authv:${keyHashHex}`,
    keyUsage: `${prefix}:keyuse`,
    /** Live chunks of one chat turn (pub/sub). */
    turnChannel: (turnId: string) => `${prefix}:turn:${turnId}`,
    /** The same chunks, capped and expiring, for clients that connect late or reconnect. */
    turnLog: (turnId: string) => `${prefix}:turnlog:${turnId}`,
    /** A list holding "stored" or "failed" for a queued turn's message; a waiting worker BLPOPs it (chat/turn/stored.ts). */
    turnStored: (turnId: string) => `${prefix}:turnstoredword:${turnId}`,
    /** The turn of a chat that is in progress, if any (for GET …/stream). */
    chatActiveTurn: (chatId: string) => `${prefix}:chatturn:${chatId}`,
    /** Held while a signed upload PUT stores its bytes, so two PUTs to one URL cannot both write. */
    uploadPut: (fileId: string) => `${prefix}:uploadput:${fileId}`,
  };
}
