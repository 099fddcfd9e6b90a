import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../api/app";
import { waitFor } from "../../scripts/lib/processes";
import type { Deps } from "../../shared/deps";
import { PLANS, type PlanTable } from "../../shared/plans";
import { redisKeys } from "../../shared/redis";
import { revokeKey } from "../../shared/services/accounts";
import { LEASE_THRESHOLD } from "../../shared/services/rateLimit";
import { call, createTestAccount, type TestApp } from "../helpers/http";
import { testDeps } from "../helpers/infra";

const LIMIT = 300;
const PLANS_300: PlanTable = { ...PLANS, plus: { ...PLANS.plus, requestsPerHour: LIMIT } };

let deps: Deps;
beforeAll(async () => {
  deps = await testDeps({ plans: PLANS_300 });
});

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
    const logged = await deps.redis.zcard(redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId));
    expect(logged).toBeGreaterThan(20);
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
      return (
        status === 429 &&
        (await deps.redis.zcard(redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId))) === LIMIT
      );
    });
    expect(total).toBe(LIMIT);
  });

  test("near the limit every request asks Redis: the last slots are exact", async () => {
    const account = await createTestAccount(deps, "plus");
    const app = createApp(deps);
    const key = redisKeys(deps.env.REDIS_PREFIX).rateLimit(account.accountId);
    // Fill the log to just above the lease threshold, as other processes would have.
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
    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX }, account.keyId);
    for (const app of apps) expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(401);
  });
});
