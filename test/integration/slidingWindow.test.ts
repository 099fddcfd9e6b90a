import { beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../shared/deps";
import { createRateLimiter } from "../../shared/services/rateLimit";
import { testDeps } from "../helpers/infra";

let deps: Deps;
beforeAll(async () => {
  deps = await testDeps();
});

/** Fresh rate, auth-version and usage keys for one test, under the run's prefix. */
function keysFor(tag: string) {
  const id = crypto.randomUUID();
  const prefix = deps.env.REDIS_PREFIX;
  return {
    id,
    rateKey: `${prefix}:rl:${tag}-${id}`,
    authVersionKey: `${prefix}:authv:${tag}-${id}`,
    usageKey: `${prefix}:keyuse-${tag}`,
    keyId: id,
    expectedVersion: "0",
  };
}

/** The real script on real Redis, with a 1.5-second window instead of an hour. */
describe("sliding-window log", () => {
  test("at most N in any window; slots return as old requests leave it; Retry-After points there", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 1500 });
    const { id, ...keys } = keysFor("sw");
    const base = { ...keys, limit: 3 };
    const take = (n: number) => consume({ ...base, slotId: `${id}-${n}` });
    expect((await take(1)).outcome).toBe("allowed");
    await Bun.sleep(700);
    expect((await take(2)).remaining).toBe(1);
    expect((await take(3)).remaining).toBe(0);
    const denied = await take(4);
    expect(denied.outcome).toBe("denied");
    // The first request leaves the window ~800 ms from now, the others later.
    expect(denied.resetMs).toBeLessThanOrEqual(800);
    await Bun.sleep(denied.resetMs + 50);
    expect((await take(5)).outcome).toBe("allowed");
    // Only one slot came back: requests 2 and 3 are still inside the window.
    expect((await take(6)).outcome).toBe("denied");
  });

  test("a changed auth version is reported as stale and nothing is counted", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 60_000 });
    const { id, ...keys } = keysFor("st");
    const call = { ...keys, limit: 5, slotId: `${id}-1` };
    await deps.redis.incr(call.authVersionKey);
    const stale = await consume(call);
    expect(stale.outcome).toBe("stale");
    expect(stale.authVersion).toBe("1");
    expect(await deps.redis.zcard(call.rateKey)).toBe(0);
  });

  test("a prefetch near the limit takes nothing; far from it, it leases slots logged at the lease's end", async () => {
    const consume = createRateLimiter(deps.redis);
    const { id, ...keys } = keysFor("pf");
    const base = { ...keys, want: 8, prefetch: true };
    const near = await consume({ ...base, limit: 10, slotId: `${id}-a` });
    expect(near.outcome).toBe("skipped");
    expect(await deps.redis.zcard(base.rateKey)).toBe(0);

    const far = await consume({ ...base, limit: 1000, slotId: `${id}-b` });
    expect(far.outcome).toBe("allowed");
    expect(far.granted).toBe(8);
    const [, score] = await deps.redis.zrange(base.rateKey, "0", "0", "WITHSCORES");
    const [seconds] = await deps.redis.time();
    // Logged in the future (now + lease lifetime), never before the requests that will use them.
    expect(Number(score)).toBeGreaterThan(Number(seconds) * 1000);
  });
});
