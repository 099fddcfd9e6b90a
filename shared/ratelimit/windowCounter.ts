import { AppError } from "../core/errors";
import type { Redis } from "../core/redis";
import { unavailable } from "../core/unavailable";

/**
 * A fixed-window counter in Redis for the throttles of rare, costly requests (sign-in, sign-up,
 * client registration): `hit` counts one more in the key's window and refuses with 429 and
 * Retry-After (the window's rest) past `max`. The count is taken before the work, so parallel
 * requests cannot all slip past the limit before any of them is recorded.
 */
export async function hitWindow(
  redis: Redis,
  key: string,
  limit: { max: number; windowSeconds: number; message: (retryAfter: string) => string },
): Promise<void> {
  const { count, ttl } = await countInWindow(redis, key, limit.windowSeconds);
  if (count > limit.max) throw retryLater(ttl, limit.message);
}

/** Counts one more in the key's window (which starts with its first count); the count and the seconds left. */
export async function countInWindow(
  redis: Redis,
  key: string,
  windowSeconds: number,
): Promise<{ count: number; ttl: number }> {
  const replies = await redis
    .multi()
    .incr(key)
    .expire(key, windowSeconds, "NX")
    .ttl(key)
    .exec()
    .catch(unavailable("Redis"));
  return { count: Number(replies?.[0]?.[1] ?? 0), ttl: Number(replies?.[2]?.[1] ?? windowSeconds) };
}

/**
 * One try per `seconds` for a key (SET NX EX): the first caller in each interval goes ahead, the
 * others wait at most that long. A slow-down that an attacker cannot stretch into a long lockout.
 */
export async function takeTurn(
  redis: Redis,
  key: string,
  seconds: number,
  message: (retryAfter: string) => string,
): Promise<void> {
  const taken = await redis.set(key, "1", "EX", seconds, "NX").catch(unavailable("Redis"));
  if (taken === "OK") return;
  const ttl = await redis.ttl(key).catch(unavailable("Redis"));
  throw retryLater(ttl > 0 ? ttl : seconds, message);
}

function retryLater(seconds: number, message: (retryAfter: string) => string): AppError {
  const retryAfter = String(Math.max(1, seconds));
  return new AppError("RATE_LIMITED", message(retryAfter), { headers: { "Retry-After": retryAfter } });
}

/** Clears counters after a success (a right password ends the failures it followed). */
export async function clearWindows(redis: Redis, ...keys: string[]): Promise<void> {
  // One DEL per key: on a Redis Cluster the keys may live on different nodes.
  await Promise.all(keys.map((key) => redis.del(key))).catch(unavailable("Redis"));
}
