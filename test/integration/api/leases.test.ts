import { beforeAll, describe, expect, test } from "bun:test";
import type { Redis as IORedis } from "ioredis";
import { createApp } from "../../../api/app";
import { waitFor } from "../../../scripts/lib/processes";
import { createKey, revokeKey } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { redisKeys } from "../../../shared/core/redis";
import { createRateLimiter, LEASE_THRESHOLD, nextSlotId, peekUsage } from "../../../shared/ratelimit/limiter";
import { call, createTestAccount, errorOf, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { webCall, webUser } from "../../helpers/website";

const LIMIT = 300;
/** Large enough for leases of the full size, as a pro account's. */
const BIG_LIMIT = 2000;
const PLANS_300: PlanTable = {
  ...PLANS,
  plus: { ...PLANS.plus, requestsPerHour: LIMIT },
  pro: { ...PLANS.pro, requestsPerHour: BIG_LIMIT },
};

let deps: Deps;
beforeAll(async () => {
  deps = await testDeps({ plans: PLANS_300 });
});

/** Slots the account's log holds (leased ones included). */
async function slotsLogged(accountId: string): Promise<number> {
  return (await peekUsage(deps.redis, redisKeys(deps.env.REDIS_PREFIX).rateLimit(accountId))).used;
}

async function burst(apps: TestApp[], key: string, count: number): Promise<number[]> {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => call(apps[i % apps.length] as TestApp, "/api/v1/account", { key })),
  );
  return responses.map((response) => response.status);
}

/** Leased slots: far from the limit a busy key spends slots taken from Redis in batches. */
describe("rate-limit leases", () => {
  test("a busy key leases slots: Redis logs more slots than requests made so far", async () => {
    const account = await createTestAccount(deps, "plus");
    const app = createApp(deps);
    for (let i = 0; i < 20; i++) expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
    const logged = await slotsLogged(account.accountId);
    expect(logged).toBeGreaterThan(20);
    // One log entry per round trip, not per slot.
    const entries = await deps.redis.zcard(redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId));
    expect(entries).toBeLessThan(logged);
  });

  test("far from the limit, most requests make no Redis round trip for the limit: counted with MONITOR", async () => {
    const account = await createTestAccount(deps, "pro");
    const app = createApp(deps);
    const rateKey = redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId);
    // The tests' Redis is a single server (MONITOR is per node).
    const monitor = await (deps.redis as IORedis).duplicate().monitor();
    // Round trips only: MONITOR also lists the commands a script runs, with "lua" as their source.
    let roundTrips = 0;
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (source !== "lua" && args.some((arg) => arg.includes(rateKey))) roundTrips += 1;
    });
    const REQUESTS = 200;
    for (let i = 0; i < REQUESTS; i++) {
      expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
    }
    // MONITOR reports commands as they run: the probe below is seen once everything before it was.
    await waitFor("the monitor to catch up", async () => {
      const before = roundTrips;
      await deps.redis.zcard(rateKey);
      await Bun.sleep(0);
      return roundTrips > before;
    });
    monitor.disconnect();
    // Each lease serves many requests from memory; one round trip per request would be 200.
    expect(roundTrips).toBeGreaterThan(1);
    expect(roundTrips).toBeLessThanOrEqual(REQUESTS / 8);
  });

  test("a request served from a lease (admitted without a promise) takes the same checks: one slot, the plan gate", async () => {
    const account = await createTestAccount(deps, "free");
    const app = createApp(deps);
    const remaining: number[] = [];
    for (let i = 0; i < 40; i++) {
      // The free plan has no health feature: every other request is refused, after taking its slot.
      const health = i % 2 === 1;
      const response = await call(app, health ? "/api/v1/health/profile" : "/api/v1/account", { key: account.apiKey });
      expect(response.status).toBe(health ? 403 : 200);
      if (health) expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
      remaining.push(Number(response.headers.get("ratelimit-remaining")));
    }
    expect(remaining.slice(1)).toEqual(remaining.slice(0, -1).map((left) => left - 1));
    // Most of them were served from leases: far fewer round trips (log entries) than requests.
    const entries = await deps.redis.zcard(redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId));
    expect(entries).toBeLessThan(10);
  });

  test("leases never admit more than the limit across processes, and unused slots come back", async () => {
    const account = await createTestAccount(deps, "plus");
    const apps = [createApp(deps), createApp(deps)];
    const first = await burst(apps, account.apiKey, LIMIT + 100);
    const admitted = first.filter((status) => status === 200).length;
    expect(admitted).toBeLessThanOrEqual(LIMIT);
    expect(first.every((status) => status === 200 || status === 429)).toBe(true);
    // Slots a process leased but did not use are handed back within a lease lifetime.
    let total = admitted;
    await waitFor("all slots used", async () => {
      const status = (await call(apps[0] as TestApp, "/api/v1/account", { key: account.apiKey })).status;
      if (status === 200) total++;
      return status === 429 && (await slotsLogged(account.accountId)) === LIMIT;
    });
    expect(total).toBe(LIMIT);
  });

  test("exactly N of N+k across four processes with full-size leases: unused leased slots are recalled", async () => {
    const account = await createTestAccount(deps, "pro");
    const apps = [createApp(deps), createApp(deps), createApp(deps), createApp(deps)];
    // Every process is busy with the key (its leases have grown) when the burst reaches the limit.
    const statuses = await burst(apps, account.apiKey, BIG_LIMIT + 100);
    expect(statuses.filter((status) => status === 200)).toHaveLength(BIG_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100);
    expect(await slotsLogged(account.accountId)).toBe(BIG_LIMIT);
  });

  test("exactly N even after Redis has forgotten its scripts (hand-backs sent again in full)", async () => {
    const account = await createTestAccount(deps, "pro");
    const apps = [createApp(deps), createApp(deps), createApp(deps), createApp(deps)];
    const warm = await burst(apps, account.apiKey, 400);
    expect(warm.every((status) => status === 200)).toBe(true);
    // Every hand-back now meets NOSCRIPT first and is sent again in full.
    await deps.redis.script("FLUSH");
    const statuses = await burst(apps, account.apiKey, BIG_LIMIT - 400 + 100);
    expect(statuses.filter((status) => status === 200)).toHaveLength(BIG_LIMIT - 400);
  });

  test("near the limit every request asks Redis: the last slots are exact", async () => {
    const account = await createTestAccount(deps, "plus");
    const app = createApp(deps);
    const key = redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId);
    // Fill the log to just above the lease threshold, as an older version would have (one entry per
    // slot, no count beside the log): the script counts it from the log.
    const now = Date.now();
    const filler = Array.from({ length: LIMIT - LEASE_THRESHOLD }, (_, i) => [now, `filler:${i}`]).flat();
    await deps.redis.zadd(key, ...(filler as (string | number)[]));
    const statuses = await burst([app, createApp(deps)], account.apiKey, LEASE_THRESHOLD + 10);
    expect(statuses.filter((status) => status === 200)).toHaveLength(LEASE_THRESHOLD);
  });

  test("revoking a busy key (with a lease in hand) takes effect on its next request in every process", async () => {
    const account = await createTestAccount(deps, "plus");
    const apps = [createApp(deps), createApp(deps)];
    for (let i = 0; i < 20; i++) await call(apps[i % 2] as TestApp, "/api/v1/account", { key: account.apiKey });
    const logged = await slotsLogged(account.accountId);
    expect(logged).toBeGreaterThan(20); // leases are held, so only the announcement can stop them
    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX }, account.keyId);
    for (const app of apps) expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(401);
  });

  test("slots another process leased and has not used are recalled: a denied client is really at the limit", async () => {
    const account = await createTestAccount(deps, "plus");
    const holder = createApp(deps);
    const other = createApp(deps);
    for (let i = 0; i < 20; i++) await call(holder, "/api/v1/account", { key: account.apiKey });
    expect(await slotsLogged(account.accountId)).toBeGreaterThan(20);
    // Another process uses up everything, the holder's unused leased slots included.
    const statuses = await burst([other], account.apiKey, LIMIT);
    expect(20 + statuses.filter((status) => status === 200).length).toBe(LIMIT);
    expect(await slotsLogged(account.accountId)).toBe(LIMIT);
    // Nothing is leased any more, so the wait is the window's: the first request leaves it in an hour.
    const denied = await call(other, "/api/v1/account", { key: account.apiKey });
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThan(3500);
  });

  test("a website request refused while API processes hold leased slots recalls them too", async () => {
    const app = createApp(deps);
    const user = await webUser(app, deps, { plan: "plus" });
    const { apiKey } = await createKey(
      { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
      user.accountId,
    );
    for (let i = 0; i < 20; i++) await call(app, "/api/v1/account", { key: apiKey });
    const held = (await slotsLogged(user.accountId)) - 20;
    expect(held).toBeGreaterThan(0);
    // Everything not leased is taken, one slot at a time, as other processes' requests would.
    const consume = createRateLimiter(deps.redis);
    const keys = redisKeys(deps.env.REDIS_PREFIX);
    const one = () =>
      consume({
        rateKey: keys.rateLimit(user.accountId),
        authVersionKey: keys.authVersion(user.accountId, "test"),
        limit: LIMIT,
        slotId: nextSlotId(),
        keyId: "test",
        expectedVersion: "*",
      });
    let taken = 0;
    while ((await one()).outcome === "allowed") taken++;
    expect(20 + held + taken).toBe(LIMIT);
    // The website's request is refused by Redis, recalls the API process's unused slots, and passes.
    const response = await webCall(app, user, "/api/health/profile");
    expect(response.status).not.toBe(429);
    expect(Number(response.headers.get("ratelimit-remaining"))).toBe(held - 1);
  });

  test("a stopping server hands its leased slots back", async () => {
    const account = await createTestAccount(deps, "plus");
    const server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${server.server?.port}/api/v1/account`;
    for (let i = 0; i < 20; i++) await fetch(url, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(await slotsLogged(account.accountId)).toBeGreaterThan(20);
    await server.stop();
    await waitFor("slots returned", async () => (await slotsLogged(account.accountId)) === 20);
  });
});
