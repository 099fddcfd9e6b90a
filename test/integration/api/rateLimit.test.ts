import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { call, createTestAccount, errorOf, mcpCall } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

const LIMIT = 10;
const SMALL: PlanTable = { ...PLANS, go: { ...PLANS.go, requestsPerHour: LIMIT } };

let deps: Deps;

beforeAll(async () => {
  deps = await testDeps({ plans: SMALL });
});

describe("hourly rate limit", () => {
  test("exactly N of N+k concurrent requests pass across two API instances; the rest are 429 with Retry-After", async () => {
    const account = await createTestAccount(deps, "go");
    // Two apps = two processes' worth of state (separate key caches), one Redis.
    const apps = [createApp(deps), createApp(deps)];
    const responses = await Promise.all(
      Array.from({ length: LIMIT + 15 }, (_, i) =>
        call(apps[i % 2] as ReturnType<typeof createApp>, "/api/v1/account", { key: account.apiKey }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    for (const response of responses.filter((r) => r.status === 429)) {
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(response.headers.get("ratelimit-remaining")).toBe("0");
      expect((await errorOf(response)).code).toBe("RATE_LIMITED");
    }
  });

  test("RateLimit headers count down on every authenticated response", async () => {
    const account = await createTestAccount(deps, "go");
    const app = createApp(deps);
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await call(app, "/api/v1/account", { key: account.apiKey });
      expect(response.headers.get("ratelimit-limit")).toBe(String(LIMIT));
      expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
      remaining.push(Number(response.headers.get("ratelimit-remaining")));
    }
    expect(remaining).toEqual([LIMIT - 1, LIMIT - 2, LIMIT - 3, LIMIT - 4]);
  });

  test("REST and MCP draw from the same budget", async () => {
    const account = await createTestAccount(deps, "go");
    const app = createApp(deps);
    for (let i = 0; i < LIMIT / 2; i++) {
      expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
    }
    const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    for (let i = 0; i < LIMIT / 2; i++) {
      const response = await mcpCall(app, listTools, { "x-api-key": account.apiKey });
      expect(response.status).toBe(200);
      expect(Number(response.headers.get("ratelimit-remaining"))).toBe(LIMIT / 2 - i - 1);
    }
    const overMcp = await mcpCall(app, listTools, { "x-api-key": account.apiKey });
    expect(overMcp.status).toBe(429);
    expect(Number(overMcp.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call(app, "/api/v1/account", { key: account.apiKey })).status).toBe(429);
  });

  test("a client reusing one X-Request-Id cannot get past the limit", async () => {
    const account = await createTestAccount(deps, "go");
    const app = createApp(deps);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      const headers = { "x-request-id": "same-request-id-1" };
      statuses.push((await call(app, "/api/v1/account", { key: account.apiKey, headers })).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
  });

  test("accounts have separate budgets", async () => {
    const app = createApp(deps);
    const spent = await createTestAccount(deps, "go");
    const fresh = await createTestAccount(deps, "go");
    await Promise.all(Array.from({ length: LIMIT + 2 }, () => call(app, "/api/v1/account", { key: spent.apiKey })));
    const response = await call(app, "/api/v1/account", { key: fresh.apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 1));
  });

  test("unauthenticated requests do not count against anyone", async () => {
    const app = createApp(deps);
    const account = await createTestAccount(deps, "go");
    for (let i = 0; i < LIMIT + 2; i++) await call(app, "/api/v1/account");
    const response = await call(app, "/api/v1/account", { key: account.apiKey });
    expect(response.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 1));
  });

  test("GET /api/v1/account reports plan limits and the remaining quota", async () => {
    const app = createApp(deps);
    const account = await createTestAccount(deps, "go");
    const body = (await (await call(app, "/api/v1/account", { key: account.apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect(body).toEqual({
      accountId: account.accountId,
      plan: "go",
      limits: { requestsPerHour: LIMIT, maxPageSize: 50, health: true },
      usage: { limit: LIMIT, remaining: LIMIT - 1, resetSeconds: 3600 },
    });
  });
});
