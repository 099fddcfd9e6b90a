/**
 * The chat relay alone, as the API runs it for a new turn: a feed opened before the turn is queued
 * (`unqueued`), its SSE response (`turnResponse`) over Bun.serve, and the shared subscriber. This
 * process is the API side; a child process is the worker and the clients: it opens a burst of
 * streams, publishes each turn's events with the worker's publisher (`start` alone, then 17 text
 * deltas and the `end` in one task, about the offline model's 20 events) and reads each body to
 * `[DONE]`. Printed: this process's CPU per turn for each burst, median and lowest; it leaves out
 * the request path (auth, the insert, the enqueue), so it is steadier than the full chat bench's
 * API figure on a shared machine. `bun test/bench/chatRelay.ts` (BENCH_RELAY_TURNS, default 200;
 * BENCH_RELAY_ROUNDS, default 12).
 */
import { turnResponse } from "../../api/sse/turnStream";
import { loadEnv, redisTarget } from "../../shared/core/env";
import { createRedis } from "../../shared/core/redis";
import { openTurnFeed } from "../../shared/events/turnFeed";
import { turnPublisher } from "../../shared/events/turnLog";
import { createTurnSubscriber } from "../../shared/events/turnSubscriber";

const TURNS = Number(process.env.BENCH_RELAY_TURNS ?? 200);
const ROUNDS = Number(process.env.BENCH_RELAY_ROUNDS ?? 12);
const env = loadEnv();
const target = redisTarget(env);

async function clients(port: string, prefix: string): Promise<void> {
  const redis = createRedis(target, "worker");
  const text = "a sentence of the answer, about as long as one of the offline model's text deltas";
  const turn = async (turnId: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/turn/${turnId}`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // `: open`: the feed is live, the turn may be "queued"
    const publisher = turnPublisher(redis, prefix, turnId);
    await publisher.publish({ chunk: { type: "start", messageId: `msg_${turnId}` } });
    const sends = Array.from({ length: 17 }, (_, i) =>
      publisher.publish({ chunk: { type: "text-delta", id: "text-0", delta: `${i}: ${text}` } }),
    );
    sends.push(publisher.publish({ end: "ok" }));
    await Promise.all(sends);
    const decoder = new TextDecoder();
    let body = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) body += decoder.decode(read.value);
    if (!body.includes("data: [DONE]")) throw new Error(`turn ${turnId} ended without [DONE]`);
  };
  for await (const _go of console) {
    await Promise.all(Array.from({ length: TURNS }, () => turn(Bun.randomUUIDv7())));
    console.log("done");
  }
}

if (process.argv[2] === "clients") {
  await clients(process.argv[3] as string, process.argv[4] as string);
  process.exit(0);
}

const prefix = `${env.REDIS_PREFIX}:relaybench${process.pid}`;
const deps = {
  redis: createRedis(target, "request"),
  turnSubscriber: createTurnSubscriber(target, prefix),
  env: { ...env, REDIS_PREFIX: prefix },
  log: { error: (message: string, fields: object) => console.error(message, fields) },
  turnRelays: new Set<() => void>(),
};
const server = Bun.serve({
  port: 0,
  async fetch(request) {
    const turnId = new URL(request.url).pathname.split("/")[2] as string;
    const feed = openTurnFeed(deps, turnId, 0, { unqueued: true });
    await feed.live;
    return turnResponse(deps as never, { chatId: turnId, feed });
  },
});
const child = Bun.spawn([process.execPath, import.meta.path, "clients", String(server.port), prefix], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const replies = (child.stdout as ReadableStream<Uint8Array>).getReader();
const burst = async () => {
  child.stdin.write("go\n");
  child.stdin.flush();
  await replies.read();
};
// Two warm-up bursts (JIT, connections), then the measured ones.
await burst();
await burst();
const perTurn: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const before = process.cpuUsage();
  await burst();
  const used = process.cpuUsage(before);
  perTurn.push((used.user + used.system) / 1000 / TURNS);
}
perTurn.sort((a, b) => a - b);
const ms = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(3)} ms`;
console.log(
  `Chat relay alone, ${ROUNDS} bursts of ${TURNS} turns: CPU per turn median ${ms(perTurn[perTurn.length >> 1])}, lowest ${ms(perTurn[0])}`,
);
child.kill();
await server.stop(true);
process.exit(0);
