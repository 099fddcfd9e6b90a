import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import IORedis from "ioredis";
import { createApp } from "../../../api/app";
import { createKey, revokeKey } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { redisUrl } from "../../../shared/core/env";
import type { Redis } from "../../../shared/core/redis";
import { startWorkers, type Workers } from "../../../workers/runner";
import { createTracker, healthAccount } from "../../helpers/health";
import { call, errorOf, json, mcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { logLines, testDeps } from "../../helpers/infra";
import { uploadFile } from "../../helpers/uploads";

/**
 * API keys never leave the request that carries them: after a run that uses keys every way a
 * client can (both headers, wrong, malformed, revoked and mismatched keys, a key pasted into a URL,
 * chat turns through the queue, MCP calls, uploads), none of the full keys, nor the secret part
 * past the display prefix, is in the captured logs, in any Redis key, value or pub/sub message
 * under the test prefix (BullMQ job data included), in any PostgreSQL row, or in an error body.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let owner: TestAccount;
let listener: IORedis;
const published: string[] = [];
const keys: string[] = [];
/** Share tokens, session ids and CSRF tokens seen during the run; a CSRF token may be stored. */
const secrets: { value: string; storable?: boolean }[] = [];
const errorBodies: string[] = [];

beforeAll(async () => {
  deps = await testDeps();
  // Every message published under the prefix during the run (chat chunks and auth announcements go
  // out on sharded channels, which no pattern subscription sees, so the server's command feed is read).
  listener = await new IORedis(redisUrl(deps.env)).monitor();
  listener.on("monitor", (_time: string, args: string[]) => {
    const [command = "", channel = "", message = ""] = args;
    if (/^s?publish$/i.test(command) && channel.startsWith(`${deps.env.REDIS_PREFIX}:`))
      published.push(`${channel} ${message}`);
  });
  workers = await startWorkers(deps, { queues: ["chat", "uploads"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
  keys.push(owner.apiKey);
}, 60_000);

afterAll(async () => {
  await workers?.close();
  listener?.disconnect();
});

/** What must never be stored or logged: the key, and its secret beyond the displayed prefix. */
function needles(key: string): string[] {
  const secret = key.slice(key.indexOf("_") + 1);
  // The display prefix (`phk_` + 6 characters) is stored on purpose; 20 characters after it are not.
  return [key, secret, secret.slice(6, 26)];
}

/** Every key name and value under the test prefix, as text: strings, hashes, lists, sets, sorted sets, streams. */
async function redisDump(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, names] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const name of names) {
      const type = await redis.type(name);
      let value: unknown;
      if (type === "string") value = await redis.getBuffer(name).then((b) => b?.toString("latin1"));
      else if (type === "hash") value = await redis.hgetall(name);
      else if (type === "list") value = await redis.lrange(name, 0, -1);
      else if (type === "set") value = await redis.smembers(name);
      else if (type === "zset") value = await redis.zrange(name, "0", "-1", "WITHSCORES");
      else if (type === "stream") value = await redis.xrange(name, "-", "+");
      else value = `(${type})`;
      out.push(`${name} ${JSON.stringify(value)}`);
    }
  } while (cursor !== "0");
  return out;
}

/** Tables and columns holding text where a needle was found (every column of every row, as text). */
async function postgresHits(needle: string): Promise<string[]> {
  const tables = await deps.sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE'`;
  const hits: string[] = [];
  for (const { name } of tables) {
    const [row] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from ${deps.sql(name)} t where strpos(t::text, ${needle}) > 0`;
    if ((row?.n ?? 0) > 0) hits.push(name);
  }
  return hits;
}

async function everywhere(needle: string) {
  return {
    logs: logLines.filter((line) => line.includes(needle)).length,
    redis: (await redisDump(deps.redis, deps.env.REDIS_PREFIX)).filter((entry) => entry.includes(needle)).length,
    published: published.filter((message) => message.includes(needle)).length,
    postgres: await postgresHits(needle),
    errorBodies: errorBodies.filter((body) => body.includes(needle)).length,
  };
}

const NOWHERE = { logs: 0, redis: 0, published: 0, postgres: [], errorBodies: 0 };

async function refused(response: Response, status = 401) {
  expect(response.status).toBe(status);
  errorBodies.push(await response.clone().text());
  await errorOf(response);
}

describe("keys are used every way a client can", () => {
  test("REST with either header; unknown, malformed, mismatched, revoked keys; a key in a URL", async () => {
    const second = await createKey(
      { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
      owner.accountId,
    );
    keys.push(second.apiKey);
    expect((await call(app, "/api/v1/account", { key: owner.apiKey })).status).toBe(200);
    expect((await call(app, "/api/v1/account", { headers: { "x-api-key": second.apiKey } })).status).toBe(200);

    const last = owner.apiKey.at(-1) === "a" ? "b" : "a";
    const unknown = `${owner.apiKey.slice(0, -1)}${last}`;
    keys.push(unknown);
    await refused(await call(app, "/api/v1/account", { key: unknown }));
    await refused(await call(app, "/api/v1/account", { headers: { authorization: `Token ${owner.apiKey}` } }));
    await refused(await call(app, "/api/v1/account", { key: `${owner.apiKey}!` }));
    await refused(await call(app, "/api/v1/account", { key: owner.apiKey, headers: { "x-api-key": second.apiKey } }));
    // Pasted where it does not belong: the query string and the path.
    await refused(await call(app, `/api/v1/account?api_key=${owner.apiKey}`));
    await refused(await call(app, `/api/v1/${owner.apiKey}`), 401);
    await refused(await call(app, `/${owner.apiKey}`), 404);
    await refused(await call(app, `/api/v1/health/trackers/${owner.apiKey}`, { key: owner.apiKey }), 404);

    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX }, second.keyId);
    await refused(await call(app, "/api/v1/account", { key: second.apiKey }));
  });

  test("chat turns (JSON and stream), uploads and logs: queued jobs and stored messages", async () => {
    const key = owner.apiKey;
    await createTracker(app, key, "Secrets log");
    const reply = await json<ChatReply>(
      await call(app, "/api/v1/health/chat", { method: "POST", key, body: { message: "what is in my profile?" } }),
    );
    const streamed = await call(app, "/api/v1/health/chat", {
      method: "POST",
      headers: { "x-api-key": key },
      body: { message: "show my health logs", chat_id: reply.chat_id, stream: true },
    });
    expect(await streamed.text()).toContain("[DONE]");
    const file = await uploadFile(app, key, {
      bytes: new TextEncoder().encode("notes"),
      contentType: "text/plain",
      filename: "notes.txt",
    });
    expect(file.status).toBe("ready");
  });

  test("MCP: listing and calls (one through the queue), bad arguments, a wrong key", async () => {
    const rpc = (message: unknown, key: string) => mcpCall(app, message, { authorization: `Bearer ${key}` });
    const call1 = (name: string, args: unknown) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    });
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, owner.apiKey)).status).toBe(200);
    const chat = await json<{ result: { isError?: boolean } }>(
      await rpc(call1("health_chat", { message: "symptom options for pregnancy" }), owner.apiKey),
    );
    expect(chat.result.isError).toBeFalsy();
    // A key pasted as an id: the not-found result names the id it was given, minus the key.
    const bad = await json<{ result: { isError?: boolean } }>(
      await rpc(call1("get_health_log", { trackerId: owner.apiKey }), owner.apiKey),
    );
    expect(bad.result.isError).toBe(true);
    errorBodies.push(JSON.stringify(bad));
    expect(JSON.stringify(bad)).toContain("phk_[removed]");
    await refused(await rpc(call1("get_account", {}), keys[2] as string));
  });
});

describe("other bearer secrets: share links and website sessions", () => {
  test("a share token is used, revoked and used again; a website session signs in and out", async () => {
    const key = owner.apiKey;
    const reply = await json<ChatReply>(
      await call(app, "/api/v1/health/chat", {
        method: "POST",
        key,
        body: { message: "symptom options for pregnancy" },
      }),
    );
    const share = await json<{ token: string }>(
      await call(app, `/api/v1/chats/${reply.chat_id}/share`, { method: "POST", key }),
    );
    secrets.push({ value: share.token });
    expect((await call(app, `/api/v1/shared/${share.token}`)).status).toBe(200);
    await call(app, `/api/v1/chats/${reply.chat_id}/share`, { method: "DELETE", key });
    await refused(await call(app, `/api/v1/shared/${share.token}`), 404);

    if (!app.routes.some((route) => route.path === "/api/auth/signup")) return;
    const signup = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: `secrets-${crypto.randomUUID()}@example.test`, password: "correct horse battery" },
    });
    expect(signup.status).toBe(201);
    const cookie = /^(sid=[^;]*)/.exec(signup.headers.get("set-cookie") ?? "")?.[1] as string;
    const { csrfToken } = await json<{ csrfToken: string }>(signup);
    secrets.push({ value: cookie.slice("sid=".length) }, { value: csrfToken, storable: true });
    expect((await call(app, "/api/auth/session", { headers: { cookie } })).status).toBe(200);
    await call(app, "/api/auth/signout", { method: "POST", headers: { cookie, "x-csrf-token": csrfToken } });
    await refused(await call(app, "/api/auth/session", { headers: { cookie } }));
  });
});

describe("and stay out of every store", () => {
  test("the scanners find a planted canary in logs, Redis and PostgreSQL (so a clean scan means something)", async () => {
    const canary = `canary-${crypto.randomUUID()}`;
    deps.log.info("canary", { canary });
    await deps.redis.set(`${deps.env.REDIS_PREFIX}:canary`, canary);
    await createTracker(app, owner.apiKey, canary.slice(0, 40));
    const found = await everywhere(canary.slice(0, 40));
    expect(found.logs).toBeGreaterThan(0);
    expect(found.redis).toBeGreaterThan(0);
    expect(found.postgres).toContain("trackers");
    await deps.redis.del(`${deps.env.REDIS_PREFIX}:canary`);
  });

  test("no key, nor its secret, in logs, Redis (BullMQ jobs included), pub/sub messages, PostgreSQL or error bodies", async () => {
    // The run above did queue jobs and log requests: the scan looks at real data.
    expect(logLines.length).toBeGreaterThan(10);
    const stored = await redisDump(deps.redis, deps.env.REDIS_PREFIX);
    expect(stored.some((entry) => entry.includes(":chat:"))).toBe(true);
    expect(stored.some((entry) => entry.includes(":uploads:"))).toBe(true);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      for (const needle of needles(key)) expect(await everywhere(needle), needle).toEqual(NOWHERE);
    }
  });

  test("share tokens and website session secrets are not stored or logged either (hashes only)", async () => {
    expect(secrets.length).toBeGreaterThan(0);
    // The session's CSRF token is handed to the page on purpose: it may be stored, never logged.
    for (const { value, storable } of secrets) {
      const found = await everywhere(value);
      expect(found.logs, value).toBe(0);
      expect(found.published, value).toBe(0);
      expect(found.errorBodies, value).toBe(0);
      if (!storable) {
        expect(found.redis, value).toBe(0);
        expect(found.postgres, value).toEqual([]);
      }
    }
  });

  test("keys are stored only as SHA-256 hashes and a display prefix", async () => {
    const rows = await deps.sql`select to_jsonb(k)::text as row from api_keys k where account_id = ${owner.accountId}`;
    expect(rows.length).toBe(2);
    for (const { row } of rows) expect(String(row)).toMatch(/"display_prefix": "phk_\w{6}…"/);
  });
});
