/**
 * `bun run papers:ingest <file>`: loads an arXiv metadata snapshot (JSON Lines, optionally gzip)
 * through the queue. The file is read as a stream; records go out in batches of 1,000 as
 * `papers.index-batch` jobs and running workers upsert them into PostgreSQL and Meilisearch.
 * Progress (docs/s) goes to stderr; a JSON summary to stdout. Re-running is safe: every write is an
 * upsert by id. Needs workers (`bun run start` or `bun run workers`).
 */
import { loadEnv } from "../shared/core/env";
import { PAPER_BATCH_MAX } from "../shared/jobs/catalog";
import { parseSourceLine, type SourcePaper } from "../shared/records/paper";
import { runCli } from "./lib/batchJobs";
import { withPaperQueue } from "./lib/paperJobs";

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

runCli(async () => {
  const path = Bun.argv[2];
  if (!path || !(await Bun.file(path).exists())) {
    console.error(
      JSON.stringify({ error: { code: "BAD_REQUEST", message: "usage: bun run papers:ingest <file.jsonl[.gz]>" } }),
    );
    return 2;
  }
  const summary = await withPaperQueue(loadEnv(), async (submit) => {
    const invalid: { line: number; reason: string }[] = [];
    let batch: SourcePaper[] = [];
    let records = 0;
    let batches = 0;
    let lineNo = 0;
    const send = async () => {
      batches += 1;
      await submit("papers.index-batch", { records: batch }, batch.length);
      batch = [];
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
    return { file: path, records, batches, invalid: invalid.length, invalidSamples: invalid.slice(0, 5) };
  });
  console.log(JSON.stringify(summary));
  return summary.records === 0 && summary.invalid > 0 ? 1 : 0;
});
