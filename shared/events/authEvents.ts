import { createRedis, type Redis, type RedisTarget } from "../core/redis";

/**
 * Announcements every API process must act on before the sender goes on:
 * - `key`: a key changed (revoked, or its account's plan changed): drop the cached copy and any
 *   leased rate-limit slots at once, so when `revokeKey` returns the key is refused everywhere. A
 *   receiver that misses the message still re-checks the key's auth version in Redis on its next
 *   rate-limit round trip: at most one lease lifetime later.
 * - `recall`: an account reached its limit while slots were leased: hand back the account's unused
 *   leased slots now rather than at the lease's end (see services/leaseRecalls.ts).
 * Each receiver acknowledges once Redis has applied its hand-backs, and the sender waits for all of
 * them (bounded).
 */
export type AuthEvent = { kind: "key"; keyHashHex: string } | { kind: "recall"; accountId: string };

export interface AuthEvents {
  /**
   * Calls `listener` with each announced event; the acknowledgement waits for what it returns (its
   * hand-backs), so the sender knows Redis has them. Returns an unsubscribe function.
   */
  listen(listener: (event: AuthEvent) => unknown): () => void;
  close(): Promise<void>;
}

/**
 * A sharded pub/sub channel (SPUBLISH): its reply counts every subscribed process, also on a
 * cluster, where a classic PUBLISH counts only the subscribers of the node it reached and the
 * sender would stop waiting too soon.
 */
export function authChannel(prefix: string): string {
  return `${prefix}:{auth}:changed`;
}

/** One subscriber connection per process; any number of listeners (one per app instance). */
export function createAuthEvents(target: RedisTarget, prefix: string, acker: Redis): AuthEvents {
  const subscriber = createRedis(target, "worker");
  const listeners = new Set<(event: AuthEvent) => unknown>();
  const channel = authChannel(prefix);
  void subscriber.ssubscribe(channel).catch(() => {});
  subscriber.on("smessage", (from: string, message: string) => {
    if (from !== channel) return;
    const [ackKey, ...rest] = message.split(" ");
    // A message without a kind (`<ackKey> <hash>…`, from a version before recalls) lists changed keys.
    const kind = rest[0] === "key" || rest[0] === "recall" ? rest.shift() : "key";
    const done: unknown[] = [];
    for (const id of rest) {
      const event: AuthEvent = kind === "recall" ? { kind, accountId: id } : { kind: "key", keyHashHex: id };
      for (const listener of listeners) done.push(listener(event));
    }
    // The expiry cleans up an acknowledgement that arrives after the sender stopped waiting.
    if (ackKey)
      void Promise.allSettled(done).then(() =>
        acker
          .multi()
          .rpush(ackKey, "1")
          .pexpire(ackKey, 10_000)
          .exec()
          .catch(() => {}),
      );
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
 * Publishes an announcement and waits until every subscribed process has acknowledged it (≤ 1 s).
 * Returns how many processes heard it and how many acknowledged in time.
 */
async function announce(
  redis: Redis,
  prefix: string,
  kind: AuthEvent["kind"],
  ids: string[],
): Promise<{ receivers: number; acknowledged: number }> {
  if (ids.length === 0) return { receivers: 0, acknowledged: 0 };
  const ackKey = `${prefix}:auth-ack:${crypto.randomUUID()}`;
  const receivers = Number(await redis.spublish(authChannel(prefix), [ackKey, kind, ...ids].join(" ")));
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

/** Keys changed: every process drops them (and their leased slots). */
export function announceAuthChange(redis: Redis, prefix: string, keyHashesHex: string[]) {
  return announce(redis, prefix, "key", keyHashesHex);
}

/** Every process hands back the account's unused leased slots. */
export function recallLeases(redis: Redis, prefix: string, accountId: string) {
  return announce(redis, prefix, "recall", [accountId]);
}
