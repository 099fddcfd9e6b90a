/**
 * Splits an API process's CPU profile (`BENCH_PROFILE=<dir> bun test/bench/chat.ts` writes a
 * `.cpuprofile` per process) into the chat turn's stages: each sample is given to the first stage
 * whose rule matches a frame of its stack, the leaf's own frames first for the Redis reader.
 * `bun test/bench/chatStages.ts <file.cpuprofile> [CPU ms per turn]` prints each stage's share, and
 * its CPU per turn when the bench's figure is given. Samples before the first turn (the app's start) and
 * idle ones are left out.
 */
import { readFileSync } from "node:fs";

type Frame = { functionName: string; url: string; lineNumber: number };
type Node = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const [file, perTurnArg] = process.argv.slice(2);
if (!file) throw new Error("usage: bun test/bench/chatStages.ts <file.cpuprofile> [CPU ms per turn]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const at = (frame: Frame, url: string, fn?: string) =>
  frame.url.includes(url) && (!fn || frame.functionName.includes(fn));

/** Stages, first match wins; each tests one frame, the stack is walked from the leaf up. */
const STAGES: [string, (frame: Frame) => boolean][] = [
  ["(idle, GC)", (f) => /^\((idle|program|garbage collector)\)$/.test(f.functionName)],
  [
    "(loading)",
    (f) => f.functionName === "(module)" || f.functionName === "require" || f.functionName === "bound require",
  ],
  ["feed: subscribe, unsubscribe", (f) => at(f, "events/turnFeed", "listen") || at(f, "events/turnFeed", "unlisten")],
  [
    "feed: replay (XRANGE), quiet check",
    (f) =>
      at(f, "events/turnLog", "replayTurn") ||
      at(f, "events/turnFeed", "quietCheck") ||
      at(f, "events/turnFeed", "catchUp") ||
      at(f, "events/turnFeed", "replay"),
  ],
  ["relay: SSE writes", (f) => at(f, "api/sse/turnStream") || f.functionName === "onReadStreamIntoSinkChunk"],
  ["feed: order, hand over", (f) => at(f, "events/turnFeed") || at(f, "events/turnLog")],
  [
    "pub/sub read (ioredis push)",
    (f) =>
      at(f, "ioredis/built/DataHandler", "onPush") ||
      at(f, "ioredis/built/DataHandler", "returnPush") ||
      at(f, "ioredis/built/DataHandler", "handleSubscriberReply"),
  ],
  ["insert (PostgreSQL)", (f) => at(f, "conversations/turns") || at(f, "node_modules/postgres")],
  [
    "enqueue (BullMQ), in-progress mark",
    (f) => at(f, "jobs/queue") || at(f, "node_modules/bullmq") || at(f, "chat/turn/active"),
  ],
  ["prepare (checks)", (f) => at(f, "chat/turn/prepare") || at(f, "chat/turn/start")],
  ["rate limit, auth", (f) => at(f, "shared/ratelimit") || at(f, "shared/auth")],
  ["request plugins, routing", (f) => at(f, "/api/") || at(f, "node_modules/elysia")],
  [
    "Redis replies (any command), socket I/O",
    (f) => at(f, "node_modules/ioredis") || f.url.startsWith("node:net") || f.url.startsWith("internal:streams"),
  ],
];

const totals = new Map<string, number>();
let started = false;
for (const id of profile.samples) {
  const stack: Frame[] = [];
  for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
    const frame = byId.get(node)?.callFrame;
    if (frame) stack.push(frame);
  }
  // Building the app and loading modules come before the first turn: left out.
  started ||= stack.some((frame) => at(frame, "chat/turn/start"));
  if (!started) {
    totals.set("(before the first turn)", (totals.get("(before the first turn)") ?? 0) + 1);
    continue;
  }
  let stage = "other";
  outer: for (const [name, test] of STAGES)
    for (const frame of stack)
      if (test(frame)) {
        stage = name;
        break outer;
      }
  // Counted, not weighted by timeDeltas: the sampler only runs while JavaScript does, so a delta
  // also holds the time the thread slept or was descheduled (on a busy machine, whole seconds).
  totals.set(stage, (totals.get(stage) ?? 0) + 1);
}

const counted = [...totals].filter(([name]) => !name.startsWith("("));
const sum = counted.reduce((total, [, samples]) => total + samples, 0);
const perTurn = perTurnArg ? Number(perTurnArg) : undefined;
console.log(`| stage | samples | share |${perTurn ? " CPU per turn |" : ""}`);
console.log(`|---|---:|---:|${perTurn ? "---:|" : ""}`);
for (const [name, samples] of counted.sort((a, b) => b[1] - a[1])) {
  const share = samples / sum;
  const cost = perTurn ? ` ${(share * perTurn).toFixed(3)} ms |` : "";
  console.log(`| ${name} | ${samples} | ${(share * 100).toFixed(1)} % |${cost}`);
}
for (const [name, samples] of totals) if (name.startsWith("(")) console.log(`${name}: ${samples} samples, left out`);
