/**
 * Health chat overhead, measured side by side in one run (`bun run bench` runs it), same offline
 * model and tools on both sides:
 * - in-process: `streamText` + `toUIMessageStream` called directly (the floor);
 * - full path: HTTP POST → API → BullMQ → worker process → Redis pub/sub → SSE → client.
 * Time to first chunk and total turn time, 200 turns one at a time; then 200 concurrent streaming
 * chats: errors, time to first chunk, and the largest gap between consecutive chunks a client saw.
 * The question ("symptom options for pregnancy") runs a tool without I/O, so the figures are the
 * pipeline's own cost.
 */
import { isStepCount, streamText } from "ai";
import { Queue } from "bullmq";
import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { healthInstructions } from "../../shared/chat/turn/prompt";
import { contextFor } from "../../shared/context/ctx";
import { redisTarget } from "../../shared/core/env";
import { createRedis, queuePrefix, redisKeys } from "../../shared/core/redis";
import { createOfflineModel } from "../../shared/llm/offline/model";
import { toAiSdkTools } from "../../shared/tools/aiSdk";
import { CHAT_TOOLS } from "../../shared/tools/chatTools";
import { reportGoal } from "./goals";
import { HOP_QUEUE, hopChannel } from "./queueHop";
import { benchWorld, cpuMs, serve } from "./world";

// The quick run (bench:quick) runs as many sequential turns as the full one: they are what warms the
// API and the worker before the burst, and with 60 the burst's worker spent about a quarter more
// CPU per turn (10.2–10.6 ms against 8.35 ms), so its p99s were not comparable with the recorded ones.
const TURNS = Number(process.env.BENCH_CHAT_TURNS ?? 200);
const WARM_UP = 20;
const CONCURRENT = Number(process.env.BENCH_CHAT_CONCURRENT ?? 200);
const QUESTION = "symptom options for pregnancy";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

// BENCH_PROFILE=<dir>: the API and the worker write CPU profiles there when they stop (Bun's --cpu-prof: markdown,
// and the .cpuprofile that test/bench/chatStages.ts splits by stage).
const profile = process.env.BENCH_PROFILE
  ? [`--cpu-prof`, `--cpu-prof-md`, `--cpu-prof-interval=250`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
  : [];
const world = await benchWorld();
const server = await serve("full", world.childEnv, profile);
// BENCH_CHAT_WORKERS: worker processes (as WORKER_PROCESSES runs them), spawned here so each one's CPU is counted.
const WORKERS = Number(process.env.BENCH_CHAT_WORKERS ?? 1);
const workers = Array.from({ length: WORKERS }, () =>
  Bun.spawn([process.execPath, ...profile, "workers/main.ts"], {
    env: { ...world.childEnv, LOG_LEVEL: "silent", WORKER_PROCESSES: "1" },
    stdout: "ignore",
    stderr: "inherit",
  }),
);
const workersCpuMs = () => workers.reduce((sum, worker) => sum + cpuMs(worker.pid), 0);
try {
  const { apiKey, accountId } = await createAccount(
    { sql: world.deps.sql, redis: world.deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const base = `http://127.0.0.1:${server.port}`;

  async function inProcess(): Promise<{ first: number; total: number }> {
    const start = performance.now();
    const ctx = contextFor(world.deps, "bench", { accountId, plan: "pro" });
    const result = streamText({
      model: createOfflineModel(),
      instructions: healthInstructions(undefined),
      messages: [{ role: "user", content: QUESTION }],
      tools: toAiSdkTools(CHAT_TOOLS, ctx),
      stopWhen: isStepCount(6),
    });
    let first = 0;
    for await (const _chunk of result.toUIMessageStream()) if (!first) first = performance.now() - start;
    return { first, total: performance.now() - start };
  }

  // The queue hop's answers, on a classic channel of the bench's own.
  const tap = createRedis(redisTarget(world.env), "worker");
  await tap.psubscribe(`${world.env.REDIS_PREFIX}:hop:*`);
  const hopWaits = new Map<string, () => void>();
  tap.on("pmessage", (_pattern: string, channel: string) => hopWaits.get(channel)?.());
  // Relay delay: when each chunk left Redis and when the SSE client got it. Turn chunks go out on
  // sharded channels, which no pattern subscription sees; each is logged in the same pipeline, and
  // its log entry's id is Redis's clock at that moment (ms). The client's times are on the same
  // wall clock (`wallMs`).
  const wallMs = () => performance.timeOrigin + performance.now();
  const received: { chatId: string; seq: number; at: number }[] = [];

  async function fullPath(): Promise<{
    first: number;
    total: number;
    maxGap: number;
    ok: boolean;
    chatId: string;
    startWall: number;
    answered: number;
  }> {
    const start = performance.now();
    const startWall = wallMs();
    const response = await fetch(`${base}/api/v1/health/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ message: QUESTION, stream: true }),
    });
    const answered = performance.now() - start;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let first = 0;
    let last = 0;
    let maxGap = 0;
    let text = "";
    let seen = 0;
    const chatId = response.headers.get("x-chat-id") as string;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const at = wallMs();
      const now = performance.now() - start;
      text += decoder.decode(value, { stream: true });
      // The first chunk is the first `data:` event: the API opens the body with a comment at once.
      if (!text.includes("data: ")) continue;
      if (!first) first = now;
      if (last) maxGap = Math.max(maxGap, now - last);
      last = now;
      for (const match of text.slice(seen).matchAll(/^id: (\d+)$/gm))
        received.push({ chatId, seq: Number(match[1]), at });
      seen = text.lastIndexOf("\n\n") + 2;
    }
    return {
      first,
      total: performance.now() - start,
      maxGap,
      ok: response.ok && text.includes("data: [DONE]") && !text.includes('"type":"error"'),
      chatId,
      startWall,
      answered,
    };
  }

  for (let i = 0; i < WARM_UP; i++) await Promise.all([inProcess(), fullPath()]);
  const direct: { first: number; total: number }[] = [];
  const piped: { first: number; total: number }[] = [];
  for (let i = 0; i < TURNS; i++) {
    direct.push(await inProcess());
    piped.push(await fullPath());
  }
  // The floor: the queue hop alone (BullMQ add → a bare worker process → pub/sub back).
  const hopper = Bun.spawn([process.execPath, "test/bench/queueHop.ts"], {
    env: world.childEnv,
    stdout: "pipe",
    stderr: "inherit",
  });
  await (hopper.stdout as ReadableStream<Uint8Array>).getReader().read();
  const hopConnection = createRedis(redisTarget(world.env), "worker");
  const hopQueue = new Queue(HOP_QUEUE, {
    connection: hopConnection,
    prefix: queuePrefix(world.env.REDIS_PREFIX, HOP_QUEUE),
  });
  const hops: number[] = [];
  for (let i = 0; i < TURNS + WARM_UP; i++) {
    const jobId = `hop${i}`;
    const answered = new Promise<void>((resolve) => hopWaits.set(hopChannel(world.env.REDIS_PREFIX, jobId), resolve));
    const start = performance.now();
    await hopQueue.add("hop", {}, { jobId, removeOnComplete: true });
    await answered;
    if (i >= WARM_UP) hops.push(performance.now() - start);
  }
  await hopQueue.close();
  hopConnection.disconnect();
  await stopProcess(hopper);
  received.length = 0;
  const redisCpuMs = async () => {
    const info = await world.deps.redis.info("cpu");
    const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
    return (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
  };
  const cpuBefore = { api: cpuMs(server.child.pid), worker: workersCpuMs(), redis: await redisCpuMs() };
  const burst = await Promise.all(Array.from({ length: CONCURRENT }, () => fullPath()));
  const cpuPerTurn = {
    api: (cpuMs(server.child.pid) - cpuBefore.api) / CONCURRENT,
    worker: (workersCpuMs() - cpuBefore.worker) / CONCURRENT,
    redis: ((await redisCpuMs()) - cpuBefore.redis) / CONCURRENT,
  };
  // Each turn's id is the id of the user message that started it.
  const turns = new Map(
    (
      await world.deps.sql<{ chatId: string; id: string }[]>`
        select chat_id as "chatId", id from chat_messages where role = 'user'`
    ).map((row) => [row.chatId, row.id]),
  );
  const published = new Map<string, number>();
  for (const turnId of turns.values()) {
    for (const [id, fields] of await world.deps.redis.xrange(
      redisKeys(world.env.REDIS_PREFIX).turnLog(turnId),
      "-",
      "+",
    ))
      published.set(`${turnId}/${(JSON.parse(fields[1] as string) as { seq: number }).seq}`, Number(id.split("-")[0]));
  }
  const relay = received.flatMap(({ chatId, seq, at }) => {
    const sent = published.get(`${turns.get(chatId)}/${seq}`);
    return sent === undefined ? [] : [at - sent];
  });
  // The worker's side of the wait, from the jobs BullMQ keeps (the newest 100 completed): queued →
  // fetched (`processedOn`, set when BullMQ moved the job to active) → `start` logged.
  const chatQueue = new Queue("chat", {
    connection: world.deps.redis,
    prefix: queuePrefix(world.env.REDIS_PREFIX, "chat"),
  });
  const burstTurns = new Set(burst.map((r) => turns.get(r.chatId)));
  const fetchedAfter: number[] = [];
  const startedAfterFetch: number[] = [];
  for (const job of await chatQueue.getJobs(["completed"], 0, -1)) {
    const turnId = (job.data as { turnId: string }).turnId;
    const started = published.get(`${turnId}/1`);
    if (!burstTurns.has(turnId) || job.processedOn === undefined || started === undefined) continue;
    fetchedAfter.push(job.processedOn - job.timestamp);
    startedAfterFetch.push(started - job.processedOn);
  }
  await chatQueue.close();
  await tap.quit();
  // Where the burst's first chunks wait: the API's answer (stored and queued), then the worker's
  // first event (picked up, "start" published), then the relay to the client.
  const startedAt = burst.map((r) => (published.get(`${turns.get(r.chatId)}/1`) ?? Number.NaN) - r.startWall);

  const row = (name: string, list: { first: number; total: number }[]) => {
    const first = list.map((r) => r.first);
    const total = list.map((r) => r.total);
    return `| ${name} | ${ms(percentile(first, 50))} | ${ms(percentile(first, 99))} | ${ms(percentile(total, 50))} | ${ms(percentile(total, 99))} |`;
  };
  console.log(`\nHealth chat, ${TURNS} sequential turns each, ${new Date().toISOString()}\n`);
  console.log("| path | first chunk p50 | first chunk p99 | whole turn p50 | whole turn p99 |");
  console.log("|---|---|---|---|---|");
  console.log(row("in-process streamText", direct));
  console.log(row("HTTP → API → BullMQ → worker → Redis → SSE", piped));
  const added = (p: number, pick: (r: { first: number; total: number }) => number) =>
    percentile(piped.map(pick), p) - percentile(direct.map(pick), p);
  console.log(
    `\nAdded by the pipeline: first chunk p50 ${ms(added(50, (r) => r.first))}, p99 ${ms(added(99, (r) => r.first))}; whole turn p50 ${ms(added(50, (r) => r.total))}, p99 ${ms(added(99, (r) => r.total))}`,
  );
  console.log(
    `Floor on this machine, the queue hop alone (BullMQ add → a bare worker process → Redis pub/sub back, ${hops.length} one at a time): p50 ${ms(percentile(hops, 50))}, p99 ${ms(percentile(hops, 99))}`,
  );
  const failures = burst.filter((r) => !r.ok).length;
  const p = (values: number[], at: number) => ms(percentile(values, at));
  const firsts = burst.map((r) => r.first);
  console.log(
    `\n${CONCURRENT} concurrent streaming chats (${WORKERS} worker process${WORKERS > 1 ? "es" : ""}): ${failures} errors; CPU per turn: API ${cpuPerTurn.api.toFixed(2)} ms, worker ${cpuPerTurn.worker.toFixed(2)} ms, Redis ${cpuPerTurn.redis.toFixed(2)} ms; first chunk p50 ${p(firsts, 50)}, p99 ${p(firsts, 99)}; ` +
      `whole turn p99 ${p(
        burst.map((r) => r.total),
        99,
      )}; largest gap between a client's chunks p99 ${p(
        burst.map((r) => r.maxGap),
        99,
      )}; ` +
      `relay delay (chunk logged in Redis → at the SSE client, 1 ms resolution, ${relay.length} chunks) p50 ${p(relay, 50)}, p99 ${p(relay, 99)}`,
  );
  console.log(
    `Where the first chunk waits, from the request: the API's answer (stored and queued) p50 ${p(
      burst.map((r) => r.answered),
      50,
    )}, p99 ${p(
      burst.map((r) => r.answered),
      99,
    )}; the worker's first event published p50 ${p(startedAt, 50)}, p99 ${p(startedAt, 99)}. ` +
      `In the worker (${fetchedAfter.length} turns): queued → fetched by BullMQ p50 ${p(fetchedAfter, 50)}, p99 ${p(fetchedAfter, 99)}; ` +
      `fetched → \`start\` logged p50 ${p(startedAfterFetch, 50)}, p99 ${p(startedAfterFetch, 99)}`,
  );
  const goal = (measure: string, value: number, bound: number) =>
    reportGoal({ bench: "chat", measure, value, goal: bound, kind: "max", unit: "ms" });
  goal(
    "added first chunk p50 (sequential turns)",
    added(50, (r) => r.first),
    3,
  );
  goal(
    "added first chunk p99 (sequential turns)",
    added(99, (r) => r.first),
    15,
  );
  goal(`first chunk p99, ${CONCURRENT} concurrent chats`, percentile(firsts, 99), 250);
  goal(
    `largest gap between a client's chunks p99, ${CONCURRENT} concurrent chats`,
    percentile(
      burst.map((r) => r.maxGap),
      99,
    ),
    100,
  );
  goal(`relay delay p99, ${CONCURRENT} concurrent chats`, percentile(relay, 99), 50);
} finally {
  await stopProcess(server.child);
  for (const worker of workers) await stopProcess(worker);
  await world.cleanup();
}
