import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import IORedis from "ioredis";
import { stopProcess, waitFor } from "../../../scripts/lib/processes";
import { createMeili } from "../../../search-index/client";
import { dropIndexes, indexUid } from "../../../search-index/indexes";
import { revokeKey } from "../../../shared/auth/accounts";
import { closeDeps, createDeps, type Deps } from "../../../shared/context/deps";
import type { Env } from "../../../shared/core/env";
import { queuePrefix, redisReady } from "../../../shared/core/redis";
import { redisSetupProblem } from "../../../shared/core/redisState";
import { migrate } from "../../../shared/db/migrate";
import { createSql, dropDatabase, ensureDatabase } from "../../../shared/db/sql";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { parseSourceLine, toPaper } from "../../../shared/records/paper";
import { type SttReplay, startSttReplay } from "../../fixtures/transcription/replayServer";
import { silentWav } from "../../helpers/audio";
import { expectContinuesAfter, sseEvents } from "../../helpers/chat";
import {
  addEntry,
  type HealthWriter,
  healthWriter,
  ownPrefix,
  removeServiceLogs,
  request,
  runLoad,
  type Service,
  spawnService,
  summarize,
} from "../../helpers/faults";
import { createTestAccount } from "../../helpers/http";
import { processEnvFor, testWorld } from "../../helpers/infra";
import { type RedisCluster, startRedisCluster } from "../../helpers/redisCluster";
import { makePdf } from "../../helpers/uploads";
import { startUpstreamFixtures, type UpstreamFixtures, upstreamEnv } from "../../helpers/upstream";

/**
 * The service on a real Redis Cluster (3 primaries, one replica each, private ports): 2 API and 2
 * worker processes with REDIS_CLUSTER_NODES, their own database, key prefix and index prefix. Then
 * the primary holding the chat queue is killed under a steady mixed load: its replica takes over,
 * the API answers 503 with Retry-After meanwhile (never 500) and recovers by itself, and nothing
 * acknowledged is lost or run twice.
 */
let cluster: RedisCluster;
let env: Env;
let deps: Deps;
let upstream: UpstreamFixtures;
let stt: SttReplay;
const apis: Service[] = [];
const workers: Service[] = [];
const report: Record<string, unknown> = {};

beforeAll(async () => {
  const world = await testWorld();
  upstream = startUpstreamFixtures();
  stt = startSttReplay();
  cluster = await startRedisCluster();
  const dbUrl = new URL(world.env.DATABASE_URL as string);
  dbUrl.pathname = `${dbUrl.pathname}_rc`;
  env = {
    ...world.env,
    DATABASE_URL: dbUrl.toString(),
    REDIS_CLUSTER_NODES: cluster.nodes,
    REDIS_PREFIX: ownPrefix(world.env, "rc"),
    MEILI_INDEX_PREFIX: `${world.env.MEILI_INDEX_PREFIX}rc_`,
  };
  await ensureDatabase(env.DATABASE_URL as string);
  const sql = createSql(env.DATABASE_URL as string, { max: 1 });
  await migrate(sql).finally(() => sql.end({ timeout: 5 }));
  await applyIndexSettings(meili(), env.MEILI_INDEX_PREFIX);
  deps = createDeps(env);
  await redisReady(deps.redis, 10_000);
  const childEnv = {
    ...processEnvFor(env),
    ...upstreamEnv(upstream),
    ELEVENLABS_API_KEY: "xi-test-key",
    ELEVENLABS_BASE_URL: stt.url,
    LOG_LEVEL: "warn",
  };
  const started = await Promise.all([
    spawnService("workers", childEnv),
    spawnService("workers", childEnv),
    spawnService("api", childEnv),
    spawnService("api", childEnv),
  ]);
  workers.push(...started.slice(0, 2));
  apis.push(...started.slice(2));
}, 60_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].map((service) => stopProcess(service.child, 5000)));
  if (deps) await closeDeps(deps);
  await cluster?.stop();
  await upstream?.stop();
  await stt?.stop();
  if (env) {
    await dropIndexes(meili(), env.MEILI_INDEX_PREFIX).catch(() => {});
    await dropDatabase(env.DATABASE_URL as string);
  }
  await removeServiceLogs();
  if (Object.keys(report).length > 0) console.info("redis cluster:", JSON.stringify(report));
}, 30_000);

function meili() {
  return createMeili(env.MEILI_URL as string, env.MEILI_MASTER_KEY);
}

const api = (i: number) => apis[i % apis.length] as Service;

/** A streamed chat turn read to its end: the SSE status, the chat, and whether it ended with [DONE]. */
async function chatTurn(target: Service, key: string, message: string, signal?: AbortSignal) {
  const response = await request(target, "/api/v1/health/chat", {
    method: "POST",
    key,
    body: { message, stream: true },
    ...(signal ? { signal } : {}),
  });
  const text = response.ok ? await response.text() : "";
  return { response, chatId: response.headers.get("x-chat-id"), done: text.includes("data: [DONE]") };
}

describe("the service on a 3-primary Redis Cluster", () => {
  test("setup: the cluster passes the checks; a node without noeviction is refused with one line; readiness and metrics report the cluster", async () => {
    expect(await redisSetupProblem(deps.redis)).toBeUndefined();
    const [, , , port] = cluster.ports;
    const node = new IORedis({ host: "127.0.0.1", port });
    try {
      await node.config("SET", "maxmemory-policy", "allkeys-lru");
      const problem = await redisSetupProblem(deps.redis);
      expect(problem).toBe(
        `Redis node 127.0.0.1:${port} has maxmemory-policy allkeys-lru; set it to noeviction (an evicted job or rate-limit key is lost work or a wrong limit).`,
      );
    } finally {
      await node.config("SET", "maxmemory-policy", "noeviction");
      node.disconnect();
    }
    const ready = await request(api(0), "/readyz");
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: { redis: { ok: boolean } } }).checks.redis.ok).toBe(true);
    const metrics = await (await request(api(1), "/metrics")).text();
    expect(metrics).toContain("redis_cluster_state_ok 1");
    expect(metrics).toContain("redis_cluster_slots_ok 16384");
    expect(metrics).toContain("redis_cluster_size 3");
    expect(metrics).toContain("redis_cluster_primaries_reachable 3");
  });

  test("rate limit: exactly the plan's 1,200 of 1,230 requests pass across both API processes; Retry-After is the window's", async () => {
    const account = await createTestAccount(deps, "free");
    const started = Date.now();
    const statuses: number[] = [];
    const retryAfters: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 1230) {
          const n = next++;
          const response = await request(api(n), "/api/v1/account", { key: account.apiKey });
          statuses.push(response.status);
          if (response.status === 429) retryAfters.push(Number(response.headers.get("retry-after")));
          await response.arrayBuffer();
        }
      }),
    );
    const elapsed = Math.ceil((Date.now() - started) / 1000);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1200);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    // The first request's slot leaves the hour's window first: the wait is the hour less the time since.
    for (const seconds of retryAfters) {
      expect(seconds).toBeGreaterThanOrEqual(3600 - elapsed - 1);
      expect(seconds).toBeLessThanOrEqual(3600);
    }
    report.rateLimitSeconds = elapsed;
  }, 60_000);

  test("a revoked key is refused by both API processes as soon as revokeKey returns", async () => {
    const account = await createTestAccount(deps, "go");
    for (const i of [0, 1])
      expect((await request(api(i), "/api/v1/account", { key: account.apiKey })).status).toBe(200);
    await revokeKey({ sql: deps.sql, redis: deps.redis, redisPrefix: env.REDIS_PREFIX }, account.keyId);
    for (const i of [0, 1])
      expect((await request(api(i), "/api/v1/account", { key: account.apiKey })).status).toBe(401);
  });

  test("a streamed chat turn runs on a worker process and resumes on the other API with Last-Event-ID", async () => {
    const writer = await healthWriter(api(0), deps, env.REDIS_PREFIX);
    upstream.mode = "stall";
    try {
      const first = await request(api(0), "/api/v1/health/chat", {
        method: "POST",
        key: writer.apiKey,
        body: { message: "side effects of aspirin", stream: true },
      });
      const chatId = first.headers.get("x-chat-id") as string;
      const events = sseEvents(first);
      const before = await events.until("tool-input-available");
      const lastSeen = before.at(-1)?.id as number;
      await events.disconnect();
      const resumed = await request(api(1), `/api/v1/health/chat/${chatId}/stream`, {
        key: writer.apiKey,
        headers: { "last-event-id": String(lastSeen) },
      });
      expect(resumed.status).toBe(200);
      const rest = sseEvents(resumed);
      upstream.mode = "normal";
      const after = await rest.rest();
      expectContinuesAfter(after, lastSeen);
      const stored = await request(api(0), `/api/v1/health/chat/${chatId}`, { key: writer.apiKey });
      expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(2);
    } finally {
      upstream.mode = "normal";
    }
  }, 30_000);

  test("an ingest through the queue converges to the input set in PostgreSQL and Meilisearch", async () => {
    const text = new TextDecoder().decode(
      Bun.gunzipSync(await Bun.file(`${import.meta.dir}/../../fixtures/arxiv/papers-1k.jsonl.gz`).bytes()),
    );
    const lines = text.split("\n").filter(Boolean).slice(0, 400);
    const file = join(tmpdir(), `phs-rc-${crypto.randomUUID()}.jsonl`);
    await Bun.write(file, `${lines.join("\n")}\n`);
    try {
      const cli = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", file], {
        env: { ...processEnvFor(env), LOG_LEVEL: "warn" },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await cli.exited).toBe(0);
    } finally {
      await unlink(file);
    }
    const expected = [...new Set(lines.map((line) => toPaper(parseSourceLine(line)).id))].sort();
    const stored = (await deps.sql<{ id: string }[]>`select id from papers order by id`).map((row) => row.id);
    expect(stored).toEqual(expected);
    const stats = await meili().index(indexUid(env.MEILI_INDEX_PREFIX, "papers")).getStats();
    expect(stats.numberOfDocuments).toBe(expected.length);
  }, 60_000);

  test("uploads and transcription jobs run on the workers", async () => {
    const writer = await healthWriter(api(1), deps, env.REDIS_PREFIX);
    const bytes = await makePdf(["Hemoglobin 13.9 g/dL"]);
    const presigned = await request(api(0), "/api/v1/uploads/presign", {
      method: "POST",
      key: writer.apiKey,
      body: { scope: "health", filename: "labs.pdf", contentType: "application/pdf", size: bytes.length },
    });
    const ticket = (await presigned.json()) as { fileId: string; uploadUrl: string };
    const path = new URL(ticket.uploadUrl).pathname + new URL(ticket.uploadUrl).search;
    const put = await fetch(`${api(1).url}${path}`, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const complete = await request(api(0), "/api/v1/uploads/complete", {
      method: "POST",
      key: writer.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(complete.status).toBeLessThan(300);
    let status = "processing";
    for (let i = 0; i < 200 && (status === "processing" || status === "uploaded"); i++) {
      await Bun.sleep(50);
      const info = await request(api(1), `/api/v1/uploads/${ticket.fileId}`, { key: writer.apiKey });
      status = ((await info.json()) as { status: string }).status;
    }
    expect(status).toBe("ready");

    const form = new FormData();
    form.append("audio", new Blob([silentWav()], { type: "audio/wav" }), "note.wav");
    form.append("provider", "elevenlabs");
    const transcribed = await fetch(`${api(0).url}/api/v1/transcribe`, {
      method: "POST",
      headers: { authorization: `Bearer ${writer.apiKey}` },
      body: form,
    });
    expect(transcribed.status).toBe(200);
    expect(((await transcribed.json()) as { text: string }).text).toBe(
      "I have had a headache since yesterday morning.",
    );
  }, 30_000);

  test("failover under load: the chat queue's primary is killed; 503 with Retry-After until the service recovers by itself; nothing acknowledged is lost or run twice", async () => {
    const writers: HealthWriter[] = [];
    // Entry writers have a log each (a log keeps its newest 180 entries); the others share two accounts.
    for (let i = 0; i < 4; i++) writers.push(await healthWriter(api(i), deps, env.REDIS_PREFIX));
    const chats: { chatId: string; done: boolean }[] = [];
    // Writers 0–1 add log entries, 2–3 stream chat turns, 4–5 search papers; each on alternating APIs.
    const load = runLoad(
      6,
      async (writer, signal) => {
        const target = api(writer + chats.length);
        const account = writers[writer < 2 ? writer : 2 + (writer % 2)] as HealthWriter;
        if (writer < 2) return addEntry(target, account, signal);
        if (writer < 4) {
          const turn = await chatTurn(target, account.apiKey, "symptom options for pregnancy", signal);
          if (turn.response.ok && turn.chatId) chats.push({ chatId: turn.chatId, done: turn.done });
          return new Response(JSON.stringify({ id: turn.chatId }), {
            status: turn.response.status,
            headers: turn.response.headers,
          });
        }
        return request(target, "/api/v1/papers/search?q=graph&limit=5", { key: account.apiKey, signal });
      },
      { pauseMs: 40 },
    );
    // The kill lands under load: every writer has had answers before it.
    const answered = () => new Set(load.outcomes.filter((o) => o.status >= 200 && o.status < 300).map((o) => o.writer));
    await waitFor("every writer answered", async () => answered().size === 6);
    const victim = await cluster.primaryForKey(queuePrefix(env.REDIS_PREFIX, "chat"));
    const killedAt = load.elapsed();
    await cluster.kill(victim);
    const failover = await cluster.waitForFailover(victim);
    // The load runs on until every client has had a success sent after the last failure, at least a
    // second after it (bounded: the test fails below if recovery never comes).
    const recoveredAll = () => {
      const lastFailed = load.outcomes
        .filter((o) => o.status < 200 || o.status >= 300)
        .reduce((end, o) => Math.max(end, o.sentAt + o.ms), killedAt);
      const ok = load.outcomes.filter((o) => o.sentAt > lastFailed && o.status >= 200 && o.status < 300);
      return load.elapsed() - lastFailed > 1000 && new Set(ok.map((o) => o.writer)).size === 6;
    };
    for (let waited = 0; waited < 15_000 && !recoveredAll(); waited += 200) await Bun.sleep(200);
    const outcomes = await load.stop();

    const summary = summarize(outcomes);
    const failed = outcomes.filter((o) => o.status < 200 || o.status >= 300);
    const lastFailure = failed.reduce((end, o) => Math.max(end, o.sentAt + o.ms), killedAt);
    report.failover = {
      clusterFailoverMs: failover.ms,
      serviceUnavailableMs: Math.round(lastFailure - killedAt),
      byStatus: summary.byStatus,
      slowestMs: summary.slowestMs,
    };
    // Never a 500, never a dropped connection: a success or a 503 that says when to retry.
    expect(summary.unexpected).toEqual([]);
    expect(outcomes.filter((o) => o.status === 0)).toEqual([]);
    expect(summary.unavailableWithoutRetryAfter).toBe(0);
    // It recovered by itself: successes sent after the last failure, of every kind.
    const recovered = outcomes.filter((o) => o.sentAt > lastFailure && o.status >= 200 && o.status < 300);
    expect(new Set(recovered.map((o) => o.writer)).size).toBe(6);

    // Every acknowledged entry is stored.
    const entryIds = outcomes.filter((o) => o.writer < 2 && o.status === 201).map((o) => o.id as string);
    const [entries] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from tracker_entries where id = any(${entryIds}::uuid[])`;
    expect(entries?.n).toBe(entryIds.length);
    // Every acknowledged turn ran exactly once: one reply each, and the client saw its end.
    await waitForReplies(chats.map((c) => c.chatId));
    const replies = await deps.sql<{ chatId: string; n: number }[]>`
      select chat_id as "chatId", count(*)::int as n from chat_messages
      where role = 'assistant' and chat_id = any(${chats.map((c) => c.chatId)}::uuid[]) group by chat_id`;
    expect(replies).toHaveLength(chats.length);
    expect(replies.every((row) => row.n === 1)).toBe(true);
    expect(chats.every((c) => c.done)).toBe(true);
    // No job is left behind in the chat queue (a turn whose POST got a 503 may still be finishing).
    const left = () => deps.queues.chat.getJobCounts("waiting", "active", "delayed");
    await waitFor("the chat queue to empty", async () => Object.values(await left()).every((n) => n === 0), 15_000);
  }, 60_000);
});

/** Waits (bounded) until each chat has its assistant reply. */
async function waitForReplies(chatIds: string[]): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [row] = await deps.sql<{ n: number }[]>`
      select count(distinct chat_id)::int as n from chat_messages
      where role = 'assistant' and chat_id = any(${chatIds}::uuid[])`;
    if ((row?.n ?? 0) >= chatIds.length) return;
    await Bun.sleep(100);
  }
}
