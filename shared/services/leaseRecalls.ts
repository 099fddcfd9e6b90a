import { recallLeases } from "../authEvents";
import { type Redis, redisKeys } from "../redis";
import { LEASE_MS, pauseLeases } from "./rateLimit";

interface Recall {
  at: number;
  /** True once every process acknowledged (and the pause was set); false if any did not. */
  complete: Promise<boolean>;
}

/** Accounts remembered at most; older recalls are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * Recalls an account's leased rate-limit slots when Redis refused a request while leases were
 * running (see `authorize`): new leases are paused first (LEASE_PAUSE_MS; a lease granted after
 * the recall could strand slots again), then every API process hands back what it leased and has
 * not used. At most one recall per account per lease lifetime from this process: a client
 * hammering an exhausted account cannot turn each refusal into a broadcast.
 * Resolves to whether the recall is complete (every process acknowledged): then the leases still
 * running are used up, and the caller asks Redis again with `recalled`, whose answer leaves them
 * out of `Retry-After`. Otherwise it asks again without.
 */
export function createLeaseRecaller(redis: Redis, redisPrefix: string) {
  const recalls = new Map<string, Recall>();
  const rateKeys = redisKeys(redisPrefix);
  return function recall(accountId: string): Promise<boolean> {
    const now = performance.now();
    const last = recalls.get(accountId);
    if (last && now - last.at < LEASE_MS) return last.complete;
    if (recalls.size >= MAX_REMEMBERED) recalls.delete(recalls.keys().next().value as string);
    const complete = pauseLeases(redis, rateKeys.rateLimit(accountId))
      .then(() => recallLeases(redis, redisPrefix, accountId))
      .then(({ receivers, acknowledged }) => acknowledged >= receivers)
      .catch(() => false);
    recalls.delete(accountId);
    recalls.set(accountId, { at: now, complete });
    return complete;
  };
}
