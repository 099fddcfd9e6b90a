import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../api/app";
import { waitFor } from "../../scripts/lib/processes";
import type { Deps } from "../../shared/deps";
import { PLANS, type PlanTable } from "../../shared/plans";
import { redisKeys } from "../../shared/redis";
import { revokeKey } from "../../shared/services/accounts";
import { LEASE_THRESHOLD, peekUsage } from "../../shared/services/rateLimit";
import { call, createTestAccount, type TestApp } from "../helpers/http";
import { testDeps } from "../helpers/infra";

const LIMIT = 300;
const PLANS_300: PlanTable = { ...PLANS, plus: { ...PLANS.plus, requestsPerHour: LIMIT } };

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

  test("when another process holds leased slots, a denied client is told to retry within a lease lifetime", async () => {
    const account = await createTestAccount(deps, "plus");
    const holder = createApp(deps);
    const other = createApp(deps);
    for (let i = 0; i < 20; i++) await call(holder, "/api/v1/account", { key: account.apiKey });
    const held = (await slotsLogged(account.accountId)) - 20;
    expect(held).toBeGreaterThan(0);
    // Another process uses up everything that is not leased.
    const statuses = await burst([other], account.apiKey, LIMIT);
    const denied = await call(other, "/api/v1/account", { key: account.apiKey });
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get("retry-after"))).toBe(1);
    // Once the lease ends its unused slots come back, and the total admitted is exactly the limit.
    let admitted = 20 + statuses.filter((status) => status === 200).length;
    await waitFor("leased slots returned", async () => {
      const response = await call(other, "/api/v1/account", { key: account.apiKey });
      if (response.status === 200) admitted++;
      return response.status === 429 && Number(response.headers.get("retry-after")) > 1;
    });
    expect(admitted).toBe(LIMIT);
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
