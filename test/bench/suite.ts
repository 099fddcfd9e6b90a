/**
 * Every benchmark, one after the other, and one table of every goal they measured
 * (test/bench/goals.ts), each value against its goal, with the machine and the time.
 *
 * - `bun run bench`: the full run. Each bench builds its own world (database, Redis prefix,
 *   Meilisearch) as it always does, and prints its own tables as it goes. docs/benchmarks.md is
 *   written from one such run. Exits 1 only when a bench breaks.
 * - `bun run bench:quick` (`--quick`): BENCH_QUICK=1, shorter loads and one round, each bench's
 *   output kept in a log file (the path is printed). The benches share one world with the demo
 *   papers and MONDO terms loaded once: that setup would otherwise be most of a short run. Exits 1
 *   when a bench breaks or a goal shows a gross regression (see `grossRegression`); short runs on
 *   a shared machine are noisy, so a goal merely not met is reported, not failed. `.ci/run` runs
 *   this after the tests.
 * A full run records each goal's value in test/bench/recorded.json (committed with the docs written
 * from the same run), with the machine's calibration (calibrate.ts); the quick run's gate reads it
 * (goals.ts, `grossLimit`) and scales the bounds of absolute times on a slower machine.
 * BENCH_ONLY=mcp,chat runs only those benches.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startWorkers } from "../../workers/runner";
import { calibrationMs, slowerBy } from "./calibrate";
import {
  type GoalResult,
  goalKey,
  goalMet,
  grossLimit,
  grossRegression,
  parseGoals,
  RECORDED_FILE,
  type Recorded,
} from "./goals";
import { type BenchWorld, benchWorld, loadDemoData, sharedWorldOf, shareWorld } from "./world";

/** Every bench, by the name its goal lines carry. */
const BENCHES = [
  ["foundation", "test/bench/run.ts"],
  ["papers", "test/bench/papers.ts"],
  ["searchCache", "test/bench/searchCache.ts"],
  ["medication", "test/bench/references.ts"],
  ["conditions", "test/bench/conditions.ts"],
  ["chat", "test/bench/chat.ts"],
  ["mcp", "test/bench/mcp.ts"],
] as const;

const quick = Bun.argv.includes("--quick");
const only = process.env.BENCH_ONLY?.split(",").filter(Boolean);
const logs = mkdtempSync(join(tmpdir(), quick ? "bench-quick-" : "bench-"));
const goals: GoalResult[] = [];
const failures: string[] = [];
const started = performance.now();
// Before any bench loads the machine: how fast it runs the service's kind of work (calibrate.ts).
const calibration = calibrationMs();
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);

let world: BenchWorld | undefined;
let shared: Record<string, string> = {};
if (quick) {
  world = await benchWorld();
  const loaders = await startWorkers(world.deps, { queues: ["papers", "conditions"] });
  await loadDemoData(world.childEnv);
  // The benches start the workers they measure: these would take their jobs too.
  await loaders.close();
  shared = { ...shareWorld(sharedWorldOf(world, true)), BENCH_QUICK: "1" };
  console.error(`bench:quick: world ready in ${seconds(started)} s`);
}

try {
  for (const [name, script] of BENCHES) {
    if (only && !only.includes(name)) continue;
    const log = join(logs, `${name}.log`);
    const benchStarted = performance.now();
    const child = Bun.spawn([process.execPath, script], {
      env: { ...process.env, ...shared },
      stdout: "pipe",
      // A full run shows each bench's progress as it goes; a quick one keeps it in the log.
      stderr: quick ? Bun.file(log) : "inherit",
    });
    let output = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      if (!quick) process.stdout.write(text);
    }
    const code = await child.exited;
    await Bun.write(`${log}.out`, output);
    const found = parseGoals(output);
    goals.push(...found);
    console.error(`bench: ${name} ${code === 0 ? "done" : `FAILED (exit ${code})`} in ${seconds(benchStarted)} s`);
    if (code !== 0 || found.length === 0) failures.push(`${name} (exit ${code}; see ${log} and ${log}.out)`);
  }
} finally {
  await world?.cleanup();
}

const recorded: Recorded | undefined = existsSync(RECORDED_FILE)
  ? (JSON.parse(readFileSync(RECORDED_FILE, "utf8")) as Recorded)
  : undefined;
const recordedValue = (goal: GoalResult) => recorded?.values[goalKey(goal)];
const slower = slowerBy(calibration, recorded?.calibrationMs);
const gross = quick ? goals.filter((goal) => grossRegression(goal, recordedValue(goal), slower)) : [];

const shown = (value: number, unit: GoalResult["unit"]) =>
  unit === "×" ? `${value.toFixed(2)}×` : `${value.toFixed(unit === "ms" ? 2 : 1)} ${unit}`;
console.log(
  `\n## ${quick ? "bench:quick" : "bench"}: every goal, ${new Date().toISOString()}, ${seconds(started)} s\n`,
);
console.log(`Machine: ${machine()}`);
console.log(
  `Calibration: ${calibration.toFixed(1)} ms${recorded?.calibrationMs ? ` (recorded run: ${recorded.calibrationMs.toFixed(1)} ms)` : ""}${quick ? `; gross-regression bounds of absolute times scaled ×${slower.toFixed(2)}` : ""}\n`,
);
console.log(`| bench | measure | value | goal | verdict |${quick ? " gross regression past |" : ""}`);
console.log(`|---|---|---|---|---|${quick ? "---|" : ""}`);
for (const goal of goals) {
  const verdict = gross.includes(goal) ? "**GROSS REGRESSION**" : goalMet(goal) ? "met" : "**not met**";
  const bound = `${goal.kind === "max" ? "≤" : "≥"} ${shown(goal.goal, goal.unit)}`;
  const gate = quick
    ? ` ${goal.kind === "max" ? ">" : "<"} ${shown(grossLimit(goal, recordedValue(goal), slower), goal.unit)} |`
    : "";
  console.log(`| ${goal.bench} | ${goal.measure} | ${shown(goal.value, goal.unit)} | ${bound} | ${verdict} |${gate}`);
}
for (const failure of failures) console.log(`\nFAILED: ${failure}`);
if (gross.length > 0) {
  console.log(
    `\n${gross.length} gross regression(s): worse than twice the goal, or than twice the recorded value of a goal the last full run did not meet.`,
  );
}
if (!quick && failures.length === 0) {
  // Benches left out (BENCH_ONLY) keep their recorded values.
  const values = { ...recorded?.values, ...Object.fromEntries(goals.map((goal) => [goalKey(goal), goal.value])) };
  const record: Recorded = {
    measuredAt: new Date().toISOString(),
    machine: machine(),
    calibrationMs: Number(calibration.toFixed(2)),
    values,
  };
  writeFileSync(RECORDED_FILE, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`\nRecorded in ${RECORDED_FILE}.`);
}
console.log(`\nEach bench's output: ${logs}`);
process.exit(failures.length > 0 || gross.length > 0 ? 1 : 0);

/** What the figures were measured on: they compare only as ratios, but the machine says how loaded it was. */
function machine(): string {
  const load = (() => {
    try {
      return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    } catch {
      return "unknown";
    }
  })();
  const cores = cpus();
  return `${cores.length} × ${cores[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Bun ${Bun.version}, load average ${load} at the end`;
}
