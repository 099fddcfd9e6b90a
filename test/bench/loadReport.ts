import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSourceLine, toPaper } from "../../shared/records/paper";
import { fmt, type MemorySeries, memoryVerdict, type OpStats, percentile } from "./loadStats";

/** Where the load run's processes write their logs (kept after the run, overwritten by the next). */
export const LOG_DIR = join(tmpdir(), "phs-load-logs");

async function gzLines(file: string): Promise<string[]> {
  return new TextDecoder()
    .decode(Bun.gunzipSync(await Bun.file(file).bytes()))
    .split("\n")
    .filter(Boolean);
}

/** A title word (5+ letters) and archive from every 10th demo paper: queries that find something. */
export async function paperQueries(file: string): Promise<{ word: string; archive: string }[]> {
  const queries: { word: string; archive: string }[] = [];
  (await gzLines(file)).forEach((line, i) => {
    if (i % 10 !== 0) return;
    const paper = toPaper(parseSourceLine(line));
    const word = paper.title.split(/[^A-Za-z]+/).find((w) => w.length >= 5);
    if (word) queries.push({ word, archive: paper.primaryCategory.split(".")[0] as string });
  });
  return queries;
}

/**
 * Labels of every 15th live MONDO term of the demo slice that the API answers with 2xx (`check`
 * returns a failure kind otherwise): a label whose best match is not close enough is a deliberate
 * 404 and would be counted as an error.
 */
export async function conditionNames(
  file: string,
  check: (name: string) => Promise<string | undefined>,
): Promise<string[]> {
  const labels = (await gzLines(file))
    .map((line) => JSON.parse(line) as { label: string; obsolete: boolean })
    .filter((term, i) => !term.obsolete && i % 15 === 0)
    .map((term) => term.label);
  const answered: string[] = [];
  for (const label of labels) if ((await check(label)) === undefined) answered.push(label);
  if (answered.length === 0) throw new Error("no condition name answered 2xx");
  return answered;
}

export interface RunFacts {
  minutes: number;
  rate: number;
  elapsedMs: number;
  latencyWarmupMs: number;
  memoryWarmupMin: number;
  accounts: number;
  conditions: number;
  loadBefore: string;
  loadAtStart: string;
  loadAfter: string;
  machineBusyCores: number;
  cores: number;
  cpu: { name: string; cores: number }[];
  redisMb: { before: number; after: number };
  pgTransactionsPerSecond: number;
  redisCommandsPerSecond: number;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const ms = (value: number) => (Number.isNaN(value) ? "–" : value < 10 ? value.toFixed(2) : value.toFixed(1));

/** Prints the run's figures as Markdown tables, ready for docs/reliability.md. */
export function printReport(
  facts: RunFacts,
  operations: { name: string; perSecond: number; stats: OpStats }[],
  memory: MemorySeries[],
  errorKinds: Map<string, number>,
): void {
  const seconds = facts.elapsedMs / 1000;
  const out = (line = "") => console.log(line);
  out(`\n## Load run ${new Date().toISOString()}: ${facts.minutes} min at rate ×${facts.rate}`);
  out(
    `\n2 API + 2 worker processes, ${facts.accounts} pro accounts, ${facts.conditions} condition names; ` +
      `latencies exclude the first ${(facts.latencyWarmupMs / 1000).toFixed(0)} s, errors count the whole run.`,
  );
  out(
    `Machine (${facts.cores} cores): load average ${facts.loadBefore} before setup, ${facts.loadAtStart} at the start, ` +
      `${facts.loadAfter} at the end; CPU busy ${facts.machineBusyCores.toFixed(2)} cores on average during the run, ` +
      `of which this run's processes (below) ${facts.cpu.reduce((s, p) => s + p.cores, 0).toFixed(2)}; the rest is ` +
      "PostgreSQL, Redis and whatever else ran on the machine.",
  );
  out("\n| operation | target/s | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | dropped |");
  out("|---|---|---|---|---|---|---|---|---|---|");
  for (const { name, perSecond, stats } of operations) {
    const l = stats.latencies;
    out(
      `| ${name} | ${perSecond} | ${stats.requests} | ${(stats.requests / seconds).toFixed(2)} | ${ms(percentile(l, 50))} | ` +
        `${ms(percentile(l, 90))} | ${ms(percentile(l, 99))} | ${ms(Math.max(...l))} | ${stats.errors} | ${stats.dropped} |`,
    );
  }
  const all = operations.flatMap((op) => op.stats.latencies);
  const total = operations.reduce((s, op) => s + op.stats.requests, 0);
  const errors = operations.reduce((s, op) => s + op.stats.errors, 0);
  out(
    `| **all** | ${operations.reduce((s, op) => s + op.perSecond, 0)} | ${total} | ${(total / seconds).toFixed(2)} | ` +
      `${ms(percentile(all, 50))} | ${ms(percentile(all, 90))} | ${ms(percentile(all, 99))} | ${ms(Math.max(...all))} | ` +
      `${errors} | ${operations.reduce((s, op) => s + op.stats.dropped, 0)} |`,
  );
  out(`\nErrors by kind: ${errorKinds.size === 0 ? "none" : ""}`);
  for (const [kind, count] of errorKinds) out(`- ${kind}: ${count}`);

  out(
    `\nMemory (MB, sampled every 10 s): RSS, and its anonymous part (heap) on which the verdict rests; ` +
      `slopes are least squares after the first ${facts.memoryWarmupMin} min. Load average (1 min) ` +
      `during the run: mean ${fmt(mean(memory[0]?.samples.map((s) => s.load1) ?? []))}, ` +
      `max ${fmt(Math.max(...(memory[0]?.samples.map((s) => s.load1) ?? [])))}.\n`,
  );
  out(
    "| process | RSS start | RSS end | RSS max | RSS slope MB/min | heap after warm-up | heap end | heap slope MB/min | heap 2nd-half slope | CPU (cores) | verdict |",
  );
  out("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const series of memory) {
    const v = memoryVerdict(series, facts.memoryWarmupMin);
    const cpu = facts.cpu.find((c) => c.name === series.name)?.cores ?? Number.NaN;
    out(
      `| ${series.name} | ${fmt(v.start)} | ${fmt(v.end)} | ${fmt(v.max)} | ${fmt(v.rssSlope, 2)} | ${fmt(v.anonAfterWarmup)} | ` +
        `${fmt(v.anonEnd)} | ${fmt(v.anonSlope, 2)} | ${fmt(v.lateAnonSlope, 2)} | ${fmt(cpu, 2)} | ${v.verdict} |`,
    );
  }
  out(`\nRedis used_memory: ${fmt(facts.redisMb.before)} MB before the load, ${fmt(facts.redisMb.after)} MB after.`);
  out(
    `PostgreSQL: ${fmt(facts.pgTransactionsPerSecond)} transactions/s on this run's database ` +
      `(${fmt(facts.pgTransactionsPerSecond / (total / seconds), 2)} per request). Redis: ` +
      `${fmt(facts.redisCommandsPerSecond)} commands/s on the whole server (other users included).`,
  );
}

export function firstChunkRow(chat: OpStats): string {
  const f = chat.firstChunk;
  return `Streamed chat, time to the first chunk: p50 ${ms(percentile(f, 50))} ms, p99 ${ms(percentile(f, 99))} ms (${f.length} turns).`;
}
