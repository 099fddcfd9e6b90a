import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { freePort, stopProcess, tcpOpen, waitFor } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { startWorkers } from "../../../workers/runner";
import { expectContinuesAfter, sseEvents } from "../../helpers/chat";
import { healthAccount } from "../../helpers/health";
import { call, type TestApp } from "../../helpers/http";
import { processEnvFor, testDeps } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures } from "../../helpers/upstream";

/**
 * The chat pipeline across real processes: turns run in worker processes, streams are held by
 * other processes, a client reconnects mid-turn, and a worker is killed mid-turn. The medication
 * tool's upstream is held (stall mode) to keep a turn in progress as long as a test needs.
 */
let deps: Deps;
let app: TestApp;
let key: string;
let upstream: UpstreamFixtures;
let childEnv: Record<string, string | undefined>;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  const base = await testDeps();
  const upstreamEnv = { RXNAV_BASE_URL: upstream.rxnavUrl, OPENFDA_BASE_URL: upstream.openFdaUrl };
  deps = { ...base, env: { ...base.env, ...upstreamEnv, UPSTREAM_TIMEOUT_MS: 60_000 } };
  childEnv = { ...processEnvFor(deps.env), ...upstreamEnv, UPSTREAM_TIMEOUT_MS: "60000", LOG_LEVEL: "silent" };
  app = createApp(deps);
  key = (await healthAccount(deps, app)).apiKey;
});

afterAll(async () => {
  await upstream?.stop();
});

// The tests hold turns at the medication tool's upstream: a cached answer (from another file) would not wait.
beforeEach(async () => {
  await deps.sql`delete from reference_cache`;
});

function spawnWorker() {
  return Bun.spawn([process.execPath, "workers/main.ts"], { env: childEnv, stdout: "ignore", stderr: "ignore" });
}

async function spawnApi() {
  const port = freePort();
  const child = Bun.spawn([process.execPath, "api/server.ts"], {
    env: { ...childEnv, PORT: String(port) },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor("API", () => tcpOpen("127.0.0.1", port));
  return { child, url: `http://127.0.0.1:${port}` };
}

const streamChat = (
  base: string | undefined,
  body: Record<string, unknown>,
  init: { headers?: Record<string, string> } = {},
) => {
  const request = {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
  };
  const payload = JSON.stringify({ ...body, stream: true });
  return base
    ? fetch(`${base}/api/v1/health/chat`, { ...request, body: payload })
    : app.handle(new Request("http://localhost/api/v1/health/chat", { ...request, body: payload }));
};

describe("chat across processes", () => {
  test("two API and two worker processes: the turn runs elsewhere; a client reconnects to the other API with Last-Event-ID", async () => {
    const workers = [spawnWorker(), spawnWorker()];
    const apis = [await spawnApi(), await spawnApi()];
    try {
      upstream.mode = "stall";
      const first = await streamChat(apis[0]?.url, { message: "side effects of aspirin" });
      const chatId = first.headers.get("x-chat-id") as string;
      const events = sseEvents(first);
      const before = await events.until("tool-input-available");
      const lastSeen = before.at(-1)?.id as number;
      await events.disconnect();

      const resumed = await fetch(`${apis[1]?.url}/api/v1/health/chat/${chatId}/stream`, {
        headers: { authorization: `Bearer ${key}`, "last-event-id": String(lastSeen) },
      });
      expect(resumed.status).toBe(200);
      const rest = sseEvents(resumed);
      upstream.mode = "normal";
      const after = await rest.rest();
      expectContinuesAfter(after, lastSeen);
      const types = after.flatMap((e) => (e.data === "[DONE]" ? [] : [(JSON.parse(e.data) as { type: string }).type]));
      expect(types).toContain("tool-output-available");
      expect(types.at(-1)).toBe("finish");

      // The turn finished and was stored although the first client left; nothing is in progress now.
      const stored = await call(app, `/api/v1/health/chat/${chatId}`, { key });
      expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(2);
      expect((await call(app, `/api/v1/health/chat/${chatId}/stream`, { key })).status).toBe(204);
    } finally {
      upstream.mode = "normal";
      await Promise.all([...apis.map((api) => stopProcess(api.child)), ...workers.map((w) => stopProcess(w))]);
    }
  }, 60_000);

  test("a worker killed mid-turn: the client gets an error chunk and [DONE]; exactly one (error) reply is stored", async () => {
    const doomed = spawnWorker();
    upstream.mode = "stall";
    const response = await streamChat(undefined, { message: "aspirin dosage" });
    const chatId = response.headers.get("x-chat-id") as string;
    const events = sseEvents(response);
    await events.until("tool-input-available");
    doomed.kill("SIGKILL");
    await doomed.exited;
    // A surviving worker's stalled-job check fails the orphaned turn.
    const survivor = await startWorkers(deps, { queues: ["chat"] });
    try {
      const rest = await events.rest();
      const chunks = rest.flatMap((e) => (e.data === "[DONE]" ? [] : [JSON.parse(e.data) as { type: string }]));
      expect(chunks.map((c) => c.type)).toContain("error");
      expect(rest.at(-1)?.data).toBe("[DONE]");
      const rows = await deps.sql<{ metadata: { finishReason: string } }[]>`
        select m.metadata from chat_messages m where m.chat_id = ${chatId} and m.role = 'assistant'`;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.metadata.finishReason).toBe("error");
    } finally {
      upstream.mode = "normal";
      await survivor.close();
    }
  }, 90_000);
});
