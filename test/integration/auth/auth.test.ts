import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { waitFor } from "../../../scripts/lib/processes";
import { revokeApiKey } from "../../../shared/auth/accountRepository";
import { revokeKey, setPlan } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import { generateApiKey, KEY_PREFIX } from "../../../shared/core/keys";
import { authChannel } from "../../../shared/events/authEvents";
import { call, createTestAccount, errorOf, mcpCall, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/** One representative request per protected route family; every family gets the same auth cases. */
const FAMILIES: { name: string; send: (app: TestApp, headers: Record<string, string>) => Promise<Response> }[] = [
  { name: "account", send: (app, headers) => call(app, "/api/v1/account", { headers }) },
  { name: "health", send: (app, headers) => call(app, "/api/v1/health/symptoms", { headers }) },
  { name: "unknown /api/v1 route", send: (app, headers) => call(app, "/api/v1/no-such-thing", { headers }) },
  {
    name: "mcp",
    send: (app, headers) => mcpCall(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers),
  },
];

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

describe.each(FAMILIES)("auth on $name", ({ name, send }) => {
  test("401 without a key", async () => {
    const response = await send(app, {});
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("UNAUTHORIZED");
  });

  test("401 with a malformed key", async () => {
    for (const headers of [
      { authorization: "Bearer not-a-key" },
      { authorization: `Basic ${btoa("user:pass")}` },
      { authorization: `Bearer ${KEY_PREFIX}_short` },
      { authorization: "Bearer" },
    ]) {
      const response = await send(app, headers);
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe("UNAUTHORIZED");
    }
  });

  test("401 with a well-formed but unknown key", async () => {
    const response = await send(app, { authorization: `Bearer ${generateApiKey()}` });
    expect(response.status).toBe(401);
    await errorOf(response);
  });

  test("401 with a revoked key, on its very next request", async () => {
    const account = await createTestAccount(deps, "pro");
    expect((await send(app, { authorization: `Bearer ${account.apiKey}` })).status).not.toBe(401);
    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX }, account.keyId);
    const response = await send(app, { authorization: `Bearer ${account.apiKey}` });
    expect(response.status).toBe(401);
  });

  test("passes with a valid key", async () => {
    const account = await createTestAccount(deps, "pro");
    const response = await send(app, { authorization: `Bearer ${account.apiKey}` });
    // The unknown route is 404 once authenticated; everything else succeeds.
    expect(response.status).toBe(name === "unknown /api/v1 route" ? 404 : 200);
    expect(response.headers.get("ratelimit-limit")).toBe("3600");
  });

  test("x-api-key is accepted like Authorization", async () => {
    const account = await createTestAccount(deps, "pro");
    const response = await send(app, { "x-api-key": account.apiKey });
    expect(response.status).toBe(name === "unknown /api/v1 route" ? 404 : 200);
  });

  test("two different keys in Authorization and x-api-key are refused", async () => {
    const a = await createTestAccount(deps, "pro");
    const b = await createTestAccount(deps, "pro");
    const response = await send(app, { authorization: `Bearer ${a.apiKey}`, "x-api-key": b.apiKey });
    expect(response.status).toBe(401);
  });
});

describe("paths the policy must cover", () => {
  test("a trailing slash does not slip past authentication", async () => {
    for (const [method, path] of [
      ["POST", "/api/mcp/"],
      ["GET", "/api/v1/account/"],
      ["GET", "/api/v1/health/symptoms/"],
    ]) {
      const response = await call(app, path as string, { method: method as string });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe("UNAUTHORIZED");
    }
  });
});

describe("key cache", () => {
  test("a key revoked through another process's service call is refused by an app that cached it", async () => {
    const account = await createTestAccount(deps, "go");
    const other = createApp(deps);
    const headers = { authorization: `Bearer ${account.apiKey}` };
    expect((await call(other, "/api/v1/account", { headers })).status).toBe(200);
    expect((await call(app, "/api/v1/account", { headers })).status).toBe(200);
    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX }, account.keyId);
    expect((await call(other, "/api/v1/account", { headers })).status).toBe(401);
    expect((await call(app, "/api/v1/account", { headers })).status).toBe(401);
  });

  test("an announcement in the format before recalls (`<ackKey> <hash>…`) still drops the key", async () => {
    const account = await createTestAccount(deps, "go");
    const headers = { authorization: `Bearer ${account.apiKey}` };
    expect((await call(app, "/api/v1/account", { headers })).status).toBe(200);
    // Revoked in the database only, then announced as an older process would: no kind, no version bump.
    const revoked = await revokeApiKey(deps.sql, account.keyId);
    const ackKey = `${deps.env.REDIS_PREFIX}:auth-ack:${crypto.randomUUID()}`;
    const receivers = Number(
      await deps.redis.spublish(authChannel(deps.env.REDIS_PREFIX), `${ackKey} ${revoked?.keyHash.toString("hex")}`),
    );
    await waitFor("acknowledged", async () => (await deps.redis.llen(ackKey)) >= receivers);
    expect((await call(app, "/api/v1/account", { headers })).status).toBe(401);
  });

  test("the key never appears in the log lines", async () => {
    const { logLines } = await import("../../helpers/infra");
    const account = await createTestAccount(deps, "pro");
    await call(app, "/api/v1/account", { key: account.apiKey });
    await call(app, "/api/v1/nothing-here", { key: account.apiKey });
    // Request lines are written after the response is sent.
    await waitFor("request log lines", async () => logLines.some((line) => line.includes(account.accountId)));
    expect(logLines.some((line) => line.includes(account.apiKey))).toBe(false);
  });
});

describe("plan gate on /api/v1/health/*", () => {
  test("free gets 403 PLAN_REQUIRED, go passes", async () => {
    const free = await createTestAccount(deps, "free");
    const go = await createTestAccount(deps, "go");
    const denied = await call(app, "/api/v1/health/symptoms", { key: free.apiKey });
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).code).toBe("PLAN_REQUIRED");
    const allowed = await call(app, "/api/v1/health/symptoms?kind=pregnancy", { key: go.apiKey });
    expect(allowed.status).toBe(200);
    const body = (await allowed.json()) as { kind: string; symptoms: { urgent?: boolean }[] };
    expect(body.kind).toBe("pregnancy");
    expect(body.symptoms.some((symptom) => symptom.urgent === true)).toBe(true);
  });

  test("the gate also covers unknown health paths (403 before 404)", async () => {
    const free = await createTestAccount(deps, "free");
    expect((await call(app, "/api/v1/health/not-a-route", { key: free.apiKey })).status).toBe(403);
  });

  test("a plan change applies to a cached key on its next request", async () => {
    const account = await createTestAccount(deps, "free");
    expect((await call(app, "/api/v1/health/symptoms", { key: account.apiKey })).status).toBe(403);
    await setPlan(
      { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
      { accountId: account.accountId, plan: "go" },
    );
    expect((await call(app, "/api/v1/health/symptoms", { key: account.apiKey })).status).toBe(200);
    const info = (await (await call(app, "/api/v1/account", { key: account.apiKey })).json()) as { plan: string };
    expect(info.plan).toBe("go");
  });
});
