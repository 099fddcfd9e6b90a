/**
 * How fast this machine runs the service's kind of work, measured once at the start of a suite run:
 * the median time of a fixed CPU-bound workload (JSON parse and stringify of a search page, SHA-256,
 * regular expressions over text). A full run records it beside its values; a quick run on a slower
 * machine scales the gross-regression bounds of absolute times (ms, µs) by how much slower it is, so
 * the gate catches code that got slower, not a CI machine of another kind. Ratios are not scaled:
 * both of their sides run on the same machine.
 */
const PAGE = JSON.stringify({
  hits: Array.from({ length: 200 }, (_, i) => ({
    id: `2401.${String(i).padStart(5, "0")}`,
    title: `A study of the ${i}th kind of sparse attention in long-context models`,
    authors: ["A. Author", "B. Author", "C. Author"],
    abstract: "We study how attention scales with context length and propose a sparse variant. ".repeat(6),
    categories: ["cs.LG", "cs.CL"],
  })),
});

function workload(): number {
  let checksum = 0;
  for (let round = 0; round < 20; round++) {
    const page = JSON.parse(PAGE) as { hits: { abstract: string; title: string }[] };
    for (const hit of page.hits) checksum += (hit.abstract.match(/\b\w+ion\b/g) ?? []).length + hit.title.length;
    checksum += new Bun.CryptoHasher("sha256").update(JSON.stringify(page)).digest()[0] ?? 0;
  }
  return checksum;
}

/** Median milliseconds of the workload over 9 runs, after 2 warm-up runs. */
export function calibrationMs(): number {
  workload();
  workload();
  const times: number[] = [];
  let sink = 0;
  for (let i = 0; i < 9; i++) {
    const start = Bun.nanoseconds();
    sink += workload();
    times.push((Bun.nanoseconds() - start) / 1e6);
  }
  if (sink < 0) console.log(sink);
  return times.sort((a, b) => a - b)[4] as number;
}

/** How many times slower this machine is than the recorded one: at least 1, at most 4; 1 without a record. */
export function slowerBy(now: number, recorded: number | undefined): number {
  if (!recorded || !(recorded > 0)) return 1;
  return Math.min(4, Math.max(1, now / recorded));
}
