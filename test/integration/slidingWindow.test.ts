import { beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../shared/deps";
import { createRateLimiter } from "../../shared/services/rateLimit";
import { testDeps } from "../helpers/infra";

let deps: Deps;
beforeAll(async () => {
  deps = await testDeps();
});

/** The real script on real Redis, with a 1.5-second window instead of an hour. */
describe("sliding-window log", () => {
  test("at most N in any window; slots return as old requests leave it; Retry-After points there", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 1500 });
    const id = crypto.randomUUID();
    const base = {
      rateKey: `${deps.env.REDIS_PREFIX}:rl:sw-${id}`,
      authVersionKey: `${deps.env.REDIS_PREFIX}:authv:sw-${id}`,
      usageKey: `${deps.env.REDIS_PREFIX}:keyuse-sw`,
      limit: 3,
      keyId: id,
      expectedVersion: "0",
    };
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
    const id = crypto.randomUUID();
    const call = {
      rateKey: `${deps.env.REDIS_PREFIX}:rl:st-${id}`,
      authVersionKey: `${deps.env.REDIS_PREFIX}:authv:st-${id}`,
      usageKey: `${deps.env.REDIS_PREFIX}:keyuse-st`,
      limit: 5,
      keyId: id,
      slotId: `${id}-1`,
      expectedVersion: "0",
    };
    await deps.redis.incr(call.authVersionKey);
    const stale = await consume(call);
    expect(stale.outcome).toBe("stale");
    expect(stale.authVersion).toBe("1");
    expect(await deps.redis.zcard(call.rateKey)).toBe(0);
  });

  test("a prefetch near the limit takes nothing; far from it, it leases slots logged at the lease's end", async () => {
    const consume = createRateLimiter(deps.redis);
    const id = crypto.randomUUID();
    const base = {
      rateKey: `${deps.env.REDIS_PREFIX}:rl:pf-${id}`,
      authVersionKey: `${deps.env.REDIS_PREFIX}:authv:pf-${id}`,
      usageKey: `${deps.env.REDIS_PREFIX}:keyuse-pf`,
      keyId: id,
      expectedVersion: "0",
      want: 8,
      prefetch: true,
    };
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
