import { type Redis, redisKeys } from "../core/redis";
import { recallLeases } from "../events/authEvents";
import { LEASE_MS, pauseLeases, type RateDecision } from "./limiter";

interface Recall {
  at: number;
  /** True once every process acknowledged (and the pause was set); false if any did not. */
  complete: Promise<boolean>;
}

/** Accounts remembered at most; older recalls are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * Recalls the account's leased slots when Redis refused a request while leases were running, and
 * takes the request's slot again: slots leased by API processes (this one included) and not used
 * yet would make it a 429 while the account is still under its limit. New leases are paused first (LEASE_PAUSE_MS; a
 * lease granted after the recall could strand slots again), then every API process hands back what
 * it leased and has not used (acknowledged once Redis has it), and the request asks once more.
 * Only a complete recall (every process acknowledged) makes the leases still running used up: then
 * the second ask passes `recalled`, whose answer leaves them out of `Retry-After`.
 * At most one recall per account per lease lifetime from this process: a client hammering an
 * exhausted account cannot turn each refusal into a broadcast.
 */
export function createLeaseRecaller(redis: Redis, redisPrefix: string) {
  const recalls = new Map<string, Recall>();
  const rateKeys = redisKeys(redisPrefix);

  function recall(accountId: string): Promise<boolean> {
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
  }

  /** For a refusal with `leasesRunning` (callers check it, keeping the hot path free of this). */
  return async function recallAndRetake(
    accountId: string,
    take: (recalled: boolean) => Promise<RateDecision>,
  ): Promise<RateDecision> {
    return take(await recall(accountId));
  };
}
