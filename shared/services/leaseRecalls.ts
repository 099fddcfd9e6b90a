import { recallLeases } from "../authEvents";
import { type Redis, redisKeys } from "../redis";
import { LEASE_MS, pauseLeases } from "./rateLimit";

interface Recall {
  at: number;
  /** Until every process has acknowledged (or the wait ran out). */
  pending?: Promise<unknown>;
}

/** Accounts remembered at most; older recalls are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * Recalls an account's leased rate-limit slots when Redis refused a request while leases were
 * running (see `authorize`): new leases are paused first (LEASE_PAUSE_MS; a lease granted after
 * the recall could strand slots again), then every API process hands back what it leased and has
 * not used. At most
 * one recall per account per lease lifetime from this process: leases still running after one are
 * used up (or held by a process that did not answer, which returns them within a lease lifetime),
 * so a client hammering an exhausted account cannot turn each refusal into a broadcast. Resolves
 * when the recall is done (at once when one already ran within the lease lifetime); the caller
 * then asks Redis again with `recalled`, whose answer leaves running leases out of `Retry-After`.
 */
export function createLeaseRecaller(redis: Redis, redisPrefix: string) {
  const recalls = new Map<string, Recall>();
  const rateKeys = redisKeys(redisPrefix);
  return async function recall(accountId: string): Promise<void> {
    const now = performance.now();
    const last = recalls.get(accountId);
    if (last && now - last.at < LEASE_MS) {
      await last.pending;
      return;
    }
    if (recalls.size >= MAX_REMEMBERED) recalls.delete(recalls.keys().next().value as string);
    const fresh: Recall = { at: now };
    fresh.pending = pauseLeases(redis, rateKeys.rateLimit(accountId))
      .then(() => recallLeases(redis, redisPrefix, accountId))
      .catch(() => {})
      .finally(() => {
        fresh.pending = undefined;
      });
    recalls.delete(accountId);
    recalls.set(accountId, fresh);
    await fresh.pending;
  };
}
