/**
 * `bun run papers:ingest <file>`: loads an arXiv metadata snapshot (JSON Lines, optionally gzip)
 * through the queue. The file is read as a stream; records go out in batches of 1,000 as
 * `papers.index-batch` jobs, at most a few in flight, and running workers upsert them into
 * PostgreSQL and Meilisearch. Progress (docs/s, ETA) goes to stderr; a JSON summary to stdout.
 * Re-running is safe: every write is an upsert by id. Needs workers (`bun run start` or `bun run workers`).
 */
import { QueueEvents } from "bullmq";
import { loadEnv, redisUrl } from "../shared/env";
import { PAPER_BATCH_MAX } from "../shared/jobs";
import { parseSourceLine, type SourcePaper } from "../shared/papers/record";
import { closeQueues, createQueues, enqueue } from "../shared/queue";
import { createRedis, redisReady } from "../shared/redis";

/** Batches queued ahead of the workers: enough to keep every worker slot and Meilisearch busy. */
const IN_FLIGHT = 16;

async function* lines(path: string): AsyncGenerator<string> {
  const file = Bun.file(path);
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  // The DOM stream typings disagree on Uint8Array generics; the runtime types are right.
  let stream = file.stream() as unknown as ReadableStream<Uint8Array<ArrayBuffer>>;
  if (head[0] === 0x1f && head[1] === 0x8b) {
    stream = stream.pipeThrough(new DecompressionStream("gzip")) as unknown as ReadableStream<Uint8Array<ArrayBuffer>>;
  }
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest) yield rest;
}

function progress(done: number, startedAt: number): void {
  const seconds = (performance.now() - startedAt) / 1000;
  const rate = done / Math.max(seconds, 0.001);
  process.stderr.write(
    `\r  ${done.toLocaleString("en-US")} papers indexed, ${Math.round(rate).toLocaleString("en-US")} docs/s, ${seconds.toFixed(1)} s   `,
  );
}

async function main(): Promise<number> {
  const path = Bun.argv[2];
  if (!path || !(await Bun.file(path).exists())) {
    console.error(
      JSON.stringify({ error: { code: "BAD_REQUEST", message: "usage: bun run papers:ingest <file.jsonl[.gz]>" } }),
    );
    return 2;
  }
  const env = loadEnv();
  const connection = createRedis(redisUrl(env), "worker");
  await redisReady(connection);
  const queues = createQueues(connection, env.REDIS_PREFIX);
  const events = new QueueEvents("papers", { connection: connection.duplicate(), prefix: env.REDIS_PREFIX });
  await events.waitUntilReady();
  try {
    // Workers started together with this command (as `bun run start` does) get a moment to register.
    const deadline = Date.now() + 30_000;
    while ((await queues.papers.getWorkers()).length === 0 && Date.now() < deadline) await Bun.sleep(250);
    if ((await queues.papers.getWorkers()).length === 0) {
      console.error(
        JSON.stringify({
          error: {
            code: "UNAVAILABLE",
            message: "No workers are running: start them with `bun run workers` (or `bun run start`).",
          },
        }),
      );
      return 1;
    }
    const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const startedAt = performance.now();
    const pending = new Set<Promise<unknown>>();
    let batch: SourcePaper[] = [];
    let batches = 0;
    let records = 0;
    let indexed = 0;
    const invalid: { line: number; reason: string }[] = [];
    let lineNo = 0;

    const send = async () => {
      const records = batch;
      batch = [];
      batches += 1;
      const job = await enqueue(queues, "papers.index-batch", { records }, { jobId: `papers-${runId}-${batches}` });
      const done = job.waitUntilFinished(events).then(() => {
        indexed += records.length;
        progress(indexed, startedAt);
      });
      pending.add(done);
      void done.finally(() => pending.delete(done));
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    };

    for await (const line of lines(path)) {
      lineNo += 1;
      if (!line.trim()) continue;
      try {
        batch.push(parseSourceLine(line));
        records += 1;
      } catch (error) {
        invalid.push({ line: lineNo, reason: (error as Error).message });
      }
      if (batch.length === PAPER_BATCH_MAX) await send();
    }
    if (batch.length > 0) await send();
    await Promise.all(pending);
    const seconds = (performance.now() - startedAt) / 1000;
    process.stderr.write("\n");
    console.log(
      JSON.stringify({
        file: path,
        records,
        batches,
        invalid: invalid.length,
        invalidSamples: invalid.slice(0, 5),
        seconds: Math.round(seconds * 100) / 100,
        docsPerSecond: Math.round(records / seconds),
      }),
    );
    return records === 0 && invalid.length > 0 ? 1 : 0;
  } finally {
    await events.close();
    await closeQueues(queues);
    connection.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      JSON.stringify({ error: { code: "INTERNAL", message: error instanceof Error ? error.message : String(error) } }),
    );
    process.exit(1);
  },
);
