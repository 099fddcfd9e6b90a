import { createRedis, type Redis } from "./redis";

/**
 * Tells every API process that keys changed (revoked, or their account's plan changed), so they
 * drop their cached copy and any leased rate-limit slots at once. Each receiver acknowledges, and
 * the sender waits for all of them (bounded), so when `revokeKey` returns the key is refused
 * everywhere. A receiver that misses the message still re-checks the key's auth version in Redis
 * on its next rate-limit round trip: at most one lease lifetime later.
 */
export interface AuthEvents {
  /** Calls `listener` with the hex SHA-256 of each changed key. Returns an unsubscribe function. */
  listen(listener: (keyHashHex: string) => void): () => void;
  close(): Promise<void>;
}

export function authChannel(prefix: string): string {
  return `${prefix}:auth-changed`;
}

/** One subscriber connection per process; any number of listeners (one per app instance). */
export function createAuthEvents(url: string, prefix: string, acker: Redis): AuthEvents {
  const subscriber = createRedis(url, "worker");
  const listeners = new Set<(keyHashHex: string) => void>();
  const channel = authChannel(prefix);
  void subscriber.subscribe(channel).catch(() => {});
  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    const [ackKey, ...hashes] = message.split(" ");
    for (const hash of hashes) for (const listener of listeners) listener(hash);
    // The expiry cleans up an acknowledgement that arrives after the sender stopped waiting.
    if (ackKey)
      void acker
        .multi()
        .rpush(ackKey, "1")
        .pexpire(ackKey, 10_000)
        .exec()
        .catch(() => {});
  });
  return {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      subscriber.disconnect();
    },
  };
}

const ACK_TIMEOUT_MS = 1000;

/**
 * Publishes a change and waits until every subscribed process has acknowledged it (≤ 1 s).
 * Returns how many processes heard it and how many acknowledged in time.
 */
export async function announceAuthChange(
  redis: Redis,
  prefix: string,
  keyHashesHex: string[],
): Promise<{ receivers: number; acknowledged: number }> {
  if (keyHashesHex.length === 0) return { receivers: 0, acknowledged: 0 };
  const ackKey = `${prefix}:auth-ack:${crypto.randomUUID()}`;
  const receivers = await redis.publish(authChannel(prefix), [ackKey, ...keyHashesHex].join(" "));
  const deadline = Date.now() + ACK_TIMEOUT_MS;
  let acknowledged = 0;
  while (receivers > 0 && Date.now() < deadline) {
    acknowledged = await redis.llen(ackKey);
    if (acknowledged >= receivers) break;
    await Bun.sleep(2);
  }
  await redis.del(ackKey);
  return { receivers, acknowledged };
}
