import { readFileSync } from "node:fs";

/** Latencies and failures of one operation of the load scenario. */
export class OpStats {
  readonly latencies: number[] = [];
  /** Extra timings some operations keep (a chat's first chunk). */
  readonly firstChunk: number[] = [];
  requests = 0;
  errors = 0;
  /** Arrivals not sent because the operation already had its maximum in flight (k6's dropped iterations). */
  dropped = 0;
  inFlight = 0;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Resident memory of a process in MB, from /proc/<pid>/status (Linux): all of it (VmRSS) and its
 * anonymous part (RssAnon: heaps and stacks). The rest is file-backed: code, and for Meilisearch
 * the memory-mapped index pages it has touched, which grow towards the index size without a leak.
 */
export function rssMb(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
    return { rss: kb("VmRSS") / 1024, anon: kb("RssAnon") / 1024 };
  } catch {
    return { rss: Number.NaN, anon: Number.NaN };
  }
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? Number.NaN : num / den;
}

export interface MemorySeries {
  name: string;
  pid: number;
  /** Minutes since the start of the load, RSS in MB. */
  samples: { minute: number; rss: number; anon: number; load1: number }[];
}

/**
 * Growth verdict on the anonymous memory after the warm-up: the least-squares slope of the whole
 * remainder and of its second half (a heap still filling caches rises early and levels off; a leak
 * keeps its slope). "GROWING" needs both to exceed 0.5 MB/min.
 */
export function memoryVerdict(series: MemorySeries, warmupMinutes: number) {
  const after = series.samples.filter((s) => s.minute >= warmupMinutes);
  const line = (pick: (s: MemorySeries["samples"][number]) => number, from = 0) =>
    slope(after.slice(from).map((s) => ({ x: s.minute, y: pick(s) })));
  const anonSlope = line((s) => s.anon);
  const lateAnonSlope = line((s) => s.anon, Math.floor(after.length / 2));
  const rss = series.samples.map((s) => s.rss);
  const growing = anonSlope > 0.5 && lateAnonSlope > 0.5;
  return {
    start: rss[0] ?? Number.NaN,
    end: rss.at(-1) ?? Number.NaN,
    max: Math.max(...rss),
    rssSlope: line((s) => s.rss),
    anonAfterWarmup: after[0]?.anon ?? Number.NaN,
    anonEnd: series.samples.at(-1)?.anon ?? Number.NaN,
    anonSlope,
    lateAnonSlope,
    verdict: verdictOf(after, anonSlope, growing),
  };
}

/** Minutes after the warm-up below which a slope is mostly the heap settling, not a trend. */
const MIN_JUDGED_MINUTES = 5;

function verdictOf(after: MemorySeries["samples"], anonSlope: number, growing: boolean): string {
  const span = (after.at(-1)?.minute ?? 0) - (after[0]?.minute ?? 0);
  if (Number.isNaN(anonSlope)) return "too few samples";
  if (span < MIN_JUDGED_MINUTES) return `run too short to judge (< ${MIN_JUDGED_MINUTES} min after warm-up)`;
  return growing ? "GROWING" : "flat (no growth trend)";
}

/** Every sample as CSV (minute, process, RSS MB, anonymous MB, 1-minute load average). */
export function samplesCsv(memory: MemorySeries[]): string {
  const rows = memory.flatMap((series) =>
    series.samples.map((s) =>
      [s.minute.toFixed(2), series.name, s.rss.toFixed(1), s.anon.toFixed(1), s.load1].join(","),
    ),
  );
  return `minute,process,rss_mb,anon_mb,load1\n${rows.join("\n")}\n`;
}

export const fmt = (value: number, digits = 1) => (Number.isNaN(value) ? "–" : value.toFixed(digits));

/** The 1-, 5- and 15-minute load averages of the machine. */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}
