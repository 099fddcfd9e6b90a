import { beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../../shared/context/deps";
import { redisKeys } from "../../../shared/core/redis";
import { createRateLimiter, handBack, LEASE_MS, peekUsage } from "../../../shared/ratelimit/limiter";
import { testDeps } from "../../helpers/infra";

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
    rateKey: redisKeys(prefix).rateLimit(`${tag}-${id}`),
    authVersionKey: redisKeys(prefix).authVersion(`${tag}-${id}`, "key"),
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

  test("a denied client waits for the entry holding the slot that brings it under the limit", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 60_000 });
    const { id, ...keys } = keysFor("cut");
    for (let n = 1; n <= 3; n++) {
      expect((await consume({ ...keys, limit: 10, slotId: `${id}-${n}` })).outcome).toBe("allowed");
      await Bun.sleep(300);
    }
    // The plan is cut below what the window holds: with limit L, the (4 - L)th oldest entry must leave.
    const waits: number[] = [];
    for (const limit of [3, 2, 1]) {
      const denied = await consume({ ...keys, limit, slotId: `${id}-cut${limit}` });
      expect(denied.outcome).toBe("denied");
      waits.push(denied.resetMs);
    }
    const [first, second, third] = waits as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(250);
    expect(third - second).toBeGreaterThanOrEqual(250);
    expect(third).toBeLessThanOrEqual(60_000);
  });
});

/** A round trip's slots are one log entry carrying their number, with a count of the log's slots beside it. */
describe("log entries", () => {
  test("a lease is one entry; handing back unused slots leaves the used ones counted", async () => {
    const consume = createRateLimiter(deps.redis);
    const { id, ...keys } = keysFor("hb");
    const lease = await consume({ ...keys, limit: 1000, slotId: `${id}-a`, want: 8 });
    expect(lease.granted).toBe(8);
    expect(await deps.redis.zcard(keys.rateKey)).toBe(1);
    expect((await peekUsage(deps.redis, keys.rateKey)).used).toBe(8);

    await handBack(deps.redis, keys.rateKey, `${id}-a`, 8, 3);
    expect(await deps.redis.zrange(keys.rateKey, "0", "-1")).toEqual([`${id}-a#3`]);
    expect((await peekUsage(deps.redis, keys.rateKey)).used).toBe(3);
    const next = await consume({ ...keys, limit: 1000, slotId: `${id}-b` });
    expect(next.remaining).toBe(1000 - 4);
    // A second hand-back of the same lease finds its entry changed and returns nothing.
    await handBack(deps.redis, keys.rateKey, `${id}-a`, 8, 3);
    expect((await peekUsage(deps.redis, keys.rateKey)).used).toBe(4);
  });

  test("an entry leaving the window takes all its slots with it", async () => {
    const windowMs = 300;
    const consume = createRateLimiter(deps.redis, { windowMs });
    const { id, ...keys } = keysFor("ex");
    // Far from a limit of 1000, 8 slots are leased (logged at the lease's end).
    expect((await consume({ ...keys, limit: 1000, slotId: `${id}-a`, want: 8 })).granted).toBe(8);
    expect((await peekUsage(deps.redis, keys.rateKey, windowMs)).used).toBe(8);
    await Bun.sleep(LEASE_MS + windowMs + 100);
    expect((await peekUsage(deps.redis, keys.rateKey, windowMs)).used).toBe(0);
    const after = await consume({ ...keys, limit: 1000, slotId: `${id}-b` });
    expect(after.remaining).toBe(999);
  });

  test("a log from before entries carried slot counts is counted one slot per entry", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 60_000 });
    const { id, ...keys } = keysFor("up");
    const [seconds] = await deps.redis.time();
    const now = Number(seconds) * 1000;
    await deps.redis.zadd(keys.rateKey, now, "old:1", now, "old:2", now, "old:3");
    expect((await peekUsage(deps.redis, keys.rateKey, 60_000)).used).toBe(3);
    const last = await consume({ ...keys, limit: 4, slotId: `${id}-a` });
    expect(last.outcome).toBe("allowed");
    expect(last.remaining).toBe(0);
    expect((await consume({ ...keys, limit: 4, slotId: `${id}-b` })).outcome).toBe("denied");
  });

  test("handing back a lease that is the log's only entry keeps the log's expiry", async () => {
    const consume = createRateLimiter(deps.redis);
    const { id, ...keys } = keysFor("ttl");
    expect((await consume({ ...keys, limit: 1000, slotId: `${id}-a`, want: 8 })).granted).toBe(8);
    await handBack(deps.redis, keys.rateKey, `${id}-a`, 8, 3);
    expect(await deps.redis.pttl(keys.rateKey)).toBeGreaterThan(0);
    expect(await deps.redis.pttl(`${keys.rateKey}:n`)).toBeGreaterThan(0);
  });

  test("a count ahead of the log (entries removed by hand) is corrected from the log", async () => {
    const consume = createRateLimiter(deps.redis, { windowMs: 60_000 });
    const { id, ...keys } = keysFor("fix");
    for (let n = 1; n <= 5; n++) await consume({ ...keys, limit: 5, slotId: `${id}-${n}` });
    expect((await consume({ ...keys, limit: 5, slotId: `${id}-full` })).outcome).toBe("denied");
    // An operator resets the account by deleting its log; the count beside it is left behind.
    await deps.redis.del(keys.rateKey);
    const after = await consume({ ...keys, limit: 5, slotId: `${id}-after` });
    expect(after.outcome).toBe("allowed");
    expect(after.remaining).toBe(4);
  });

  test("Retry-After walks the log oldest first, past 64 entries and into a multi-slot entry", async () => {
    const windowMs = 60_000;
    const consume = createRateLimiter(deps.redis, { windowMs });
    const { id, ...keys } = keysFor("walk");
    for (let n = 1; n <= 70; n++) await consume({ ...keys, limit: 1000, slotId: `${id}-${n}` });
    // Then a lease of 8 slots, logged at its end (after every single entry).
    expect((await consume({ ...keys, limit: 1000, slotId: `${id}-lease`, want: 8 })).granted).toBe(8);
    const scores = (await deps.redis.zrange(keys.rateKey, "0", "-1", "WITHSCORES"))
      .filter((_, i) => i % 2 === 1)
      .map(Number);
    const redisNow = async () => {
      const [seconds, micros] = await deps.redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    // 78 slots in the log. With limit 9 the 70th slot must leave (the 70th single entry); with limit 5,
    // the 74th, which is inside the lease's entry. `recalled` leaves running leases out of the answer.
    for (const [limit, entry] of [
      [9, 69],
      [5, 70],
    ] as const) {
      const denied = await consume({ ...keys, limit, slotId: `${id}-d${limit}`, recalled: true });
      const expected = (scores[entry] as number) + windowMs - (await redisNow());
      expect(denied.outcome).toBe("denied");
      expect(Math.abs(denied.resetMs - expected)).toBeLessThanOrEqual(20);
    }
    // Without `recalled`, a running lease may end sooner and say so.
    const early = await consume({ ...keys, limit: 5, slotId: `${id}-early` });
    expect(early.leasesRunning).toBe(true);
    expect(early.resetMs).toBeLessThanOrEqual(LEASE_MS);
  });
});
