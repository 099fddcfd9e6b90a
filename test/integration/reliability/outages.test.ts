import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { freePort, waitFor } from "../../../scripts/lib/processes";
import { createMeili } from "../../../search-index/client";
import type { Deps } from "../../../shared/context/deps";
import { createRedis, redisReady } from "../../../shared/core/redis";
import { createSql } from "../../../shared/db/sql";
import { privateRedis } from "../../helpers/faults";
import { call, createTestAccount, errorOf } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

let base: Deps;
/** A private Redis the test may stop and start; the shared one is never touched. */
let redisServer: Awaited<ReturnType<typeof privateRedis>>;

beforeAll(async () => {
  base = await testDeps();
  redisServer = await privateRedis();
});

afterAll(async () => {
  await redisServer.destroy();
});

/** An app whose request connection uses the private Redis, with a key that has just worked. */
async function appOnPrivateRedis() {
  const redis = createRedis(redisServer.url, "request");
  await redisReady(redis);
  const deps: Deps = { ...base, redis };
  const app = createApp(deps);
  const account = await createTestAccount(deps, "pro");
  expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
  return { redis, app, account };
}

describe("dependency outages", () => {
  test("Redis down → 503 with Retry-After (not 500); recovers by itself when Redis returns", async () => {
    const { redis, app, account } = await appOnPrivateRedis();

    await redisServer.stop();
    const down = await call(app, "/api/v1/account", { key: account.apiKey });
    expect(down.status).toBe(503);
    expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await errorOf(down)).code).toBe("UNAVAILABLE");
    const ready = await call(app, "/readyz");
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { redis: { ok: boolean } } }).checks.redis.ok).toBe(false);

    // A fresh Redis has lost the rate-limit script and keys; the service must cope on its own.
    await redisServer.start();
    await waitFor(
      "API recovery",
      async () => (await call(app, "/api/v1/account", { key: account.apiKey })).status === 200,
    );
    expect((await call(app, "/readyz")).status).toBe(200);
    redis.disconnect();
  });

  test("a stalled Redis (not closed, just silent) → 503 instead of a hung request; recovers when it resumes", async () => {
    const { redis, app, account } = await appOnPrivateRedis();
    redisServer.signal("SIGSTOP");
    try {
      const stalled = await call(app, "/api/v1/account", { key: account.apiKey });
      expect(stalled.status).toBe(503);
      expect((await errorOf(stalled)).code).toBe("UNAVAILABLE");
    } finally {
      redisServer.signal("SIGCONT");
    }
    await waitFor(
      "API recovery",
      async () => (await call(app, "/api/v1/account", { key: account.apiKey })).status === 200,
    );
    redis.disconnect();
  });

  test("readiness names a stopped Meilisearch and PostgreSQL", async () => {
    const closed = freePort();
    const deps: Deps = {
      ...base,
      meili: createMeili(`http://127.0.0.1:${closed}`, "key"),
      sql: createSql(`postgres://postgres@127.0.0.1:${closed}/nothing`, { max: 1 }),
    };
    const response = await call(createApp(deps), "/readyz");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const body = (await response.json()) as { ready: boolean; checks: Record<string, { ok: boolean; error?: string }> };
    expect(body.ready).toBe(false);
    expect(body.checks.meilisearch?.ok).toBe(false);
    expect(body.checks.postgres?.ok).toBe(false);
    expect(body.checks.redis?.ok).toBe(true);
    expect(JSON.stringify(body)).not.toContain(String(closed));
    await deps.sql.end({ timeout: 1 });
  });

  test("PostgreSQL down on a key-cache miss → 503, not 500", async () => {
    const closed = freePort();
    const deps: Deps = { ...base, sql: createSql(`postgres://postgres@127.0.0.1:${closed}/nothing`, { max: 1 }) };
    const account = await createTestAccount(base, "pro");
    const response = await call(createApp(deps), "/api/v1/account", { key: account.apiKey });
    expect(response.status).toBe(503);
    expect((await errorOf(response)).code).toBe("UNAVAILABLE");
    await deps.sql.end({ timeout: 1 });
  });
});
