import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stopProcess, waitFor } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { redisTarget } from "../../../shared/core/env";
import { sseEvents } from "../../helpers/chat";
import {
  addEntry,
  exitWithin,
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
import { processEnvFor, testDeps } from "../../helpers/infra";
import { deletePrefix } from "../../helpers/redisKeys";
import { startUpstreamFixtures, type UpstreamFixtures } from "../../helpers/upstream";

/**
 * SIGTERM to real API and worker processes while they work. A chat turn is held at the medication
 * tool's upstream (stall mode) to keep a long request and a job in flight as long as the test needs.
 */
let deps: Deps;
let upstream: UpstreamFixtures;
let prefix: string;
let childEnv: Record<string, string | undefined>;
let worker: Service;
let apis: Service[];
let writers: HealthWriter[];
const report: Record<string, unknown> = {};

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = await testDeps();
  prefix = ownPrefix(deps.env, "fs");
  childEnv = {
    ...processEnvFor(deps.env),
    REDIS_PREFIX: prefix,
    RXNAV_BASE_URL: upstream.rxnavUrl,
    OPENFDA_BASE_URL: upstream.openFdaUrl,
    UPSTREAM_TIMEOUT_MS: "60000",
  };
  // A cached medication answer (from another file) would not wait at the stalled upstream.
  await deps.sql`delete from reference_cache`;
  worker = await spawnService("workers", childEnv);
  apis = [await spawnService("api", childEnv), await spawnService("api", childEnv)];
  writers = await Promise.all([0, 1, 2].map(() => healthWriter(apis[0] as Service, deps, prefix)));
});

afterAll(async () => {
  upstream.mode = "normal";
  await Promise.all([worker, ...(apis ?? [])].filter(Boolean).map((s) => stopProcess(s.child, 2000)));
  await upstream?.stop();
  await deletePrefix(redisTarget(deps.env), prefix);
  await removeServiceLogs();
  if (Object.keys(report).length > 0) console.info("faults: shutdown", JSON.stringify(report));
});

function chat(api: Service, key: string, message: string) {
  return request(api, "/api/v1/health/chat", {
    method: "POST",
    key,
    body: { message, stream: true },
    signal: AbortSignal.timeout(60_000),
  });
}

async function assistantReplies(chatId: string) {
  return deps.sql<{ finishReason: string }[]>`
    select metadata->>'finishReason' as "finishReason" from chat_messages
    where chat_id = ${chatId} and role = 'assistant'`;
}

describe("faults: graceful shutdown (SIGTERM) under load", () => {
  test("API: in-flight writes complete, the open chat stream closes cleanly and resumes on another API, new connections are refused, exit 0", async () => {
    const [leaving, staying] = apis as [Service, Service];
    const key = (writers[0] as HealthWriter).apiKey;
    upstream.mode = "stall";
    const response = await chat(leaving, key, "side effects of aspirin");
    expect(response.status).toBe(200);
    const chatId = response.headers.get("x-chat-id") as string;
    const events = sseEvents(response);
    const before = await events.until("tool-input-available");
    const lastSeen = before.at(-1)?.id as number;

    const load = runLoad(writers.length, (w, signal) => addEntry(leaving, writers[w] as HealthWriter, signal), {
      pauseMs: 10,
      maxEach: 150,
    });
    await waitFor("load running", async () => load.outcomes.filter((o) => o.status === 201).length >= 6);
    const signalledAt = load.elapsed();
    leaving.child.kill("SIGTERM");
    const code = await exitWithin(leaving.child, 20_000);
    const exitMs = Math.round(load.elapsed() - signalledAt);
    const outcomes = await load.stop();
    expect(code).toBe(0);

    // The chat stream ended without [DONE] (the turn is not over), so the client resumes elsewhere.
    const tail = await events.rest();
    expect(tail.map((e) => e.data)).not.toContain("[DONE]");
    const lastBeforeClose = tail.flatMap((e) => (e.id ? [e.id] : [])).at(-1) ?? lastSeen;
    const resumed = await request(staying, `/api/v1/health/chat/${chatId}/stream`, {
      key,
      headers: { "last-event-id": String(lastBeforeClose) },
      // Generous, but shorter than the 15 s keep-alive: the headers must not wait for the first event.
      signal: AbortSignal.timeout(10_000),
    });
    expect(resumed.status).toBe(200);
    upstream.mode = "normal";
    const rest = await sseEvents(resumed).rest();
    expect(rest.at(-1)?.data).toBe("[DONE]");
    expect(rest.flatMap((e) => (e.id ? [e.id] : []))[0]).toBe(lastBeforeClose + 1);
    expect((await assistantReplies(chatId)).map((r) => r.finishReason)).toEqual(["stop"]);

    // Writes: acknowledged before the signal, or refused after it (connection refused: status 0);
    // never a 5xx, never a request accepted and then dropped.
    const summary = summarize(outcomes);
    const failed = outcomes.filter((o) => o.status !== 201);
    expect(failed.filter((o) => o.status !== 0)).toEqual([]);
    expect(failed.filter((o) => o.sentAt < signalledAt)).toEqual([]);
    const acknowledged = outcomes.filter((o) => o.status === 201).map((o) => o.id as string);
    const [row] = await deps.sql<{ n: number }[]>`
      select count(*)::int as n from tracker_entries where id = any(${acknowledged}::uuid[])`;
    expect(row?.n).toBe(acknowledged.length);
    report.api = { exitCode: code, exitMs, byStatus: summary.byStatus, slowestMs: summary.slowestMs };
  }, 60_000);

  test("workers: a SIGTERM mid chat turn lets the turn (and the lookups it waits on) finish on that worker, which then exits 0; one reply stored", async () => {
    const staying = apis[1] as Service;
    const key = (writers[1] as HealthWriter).apiKey;
    await deps.sql`delete from reference_cache`;
    upstream.mode = "stall";
    const response = await chat(staying, key, "aspirin dosage");
    const chatId = response.headers.get("x-chat-id") as string;
    const events = sseEvents(response);
    await events.until("tool-input-available");
    // The worker is alone: the turn's reference lookups (jobs of their own) must still run on it while it drains.
    const leaving = worker;
    const signalledAt = performance.now();
    leaving.child.kill("SIGTERM");
    // The worker is draining: it waits for its turn, which waits for the upstream.
    await Bun.sleep(500);
    expect(leaving.child.exitCode).toBeNull();
    upstream.mode = "normal";
    const rest = await events.rest();
    const code = await exitWithin(leaving.child, 20_000);
    expect(code).toBe(0);
    const types = rest.flatMap((e) => (e.data === "[DONE]" ? [] : [(JSON.parse(e.data) as { type: string }).type]));
    expect(types).toContain("tool-output-available");
    expect(types.at(-1)).toBe("finish");
    expect(rest.at(-1)?.data).toBe("[DONE]");
    expect((await assistantReplies(chatId)).map((r) => r.finishReason)).toEqual(["stop"]);
    report.worker = { exitCode: code, exitMs: Math.round(performance.now() - signalledAt) };
  }, 60_000);
});
