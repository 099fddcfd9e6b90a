/**
 * `bun run bench:quick`: a short run of every benchmark, one after the other, and one table of
 * every goal they measured (test/bench/goals.ts), each ratio against its goal.
 *
 * Each bench runs as `bun run bench` runs it, with BENCH_QUICK=1 (shorter loads, one round), its
 * output kept in a log file (its path is printed). They share one world (database, Redis prefix,
 * Meilisearch) with the demo papers and MONDO terms loaded once, rather than each building and
 * loading its own: that setup would be most of a short run. Exits 1 when a bench fails or a goal shows a gross
 * regression (worse than twice the goal): short runs on a shared machine are noisy, so a goal
 * merely not met is reported, not failed. `.ci/run` runs this after the tests.
 *   bun run bench:quick                 (BENCH_QUICK_ONLY=mcp,chat runs only those benches)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWorkers } from "../../workers/runner";
import { type GoalResult, goalMet, grossRegression, parseGoals } from "./goals";
import { benchWorld, loadDemoData, sharedWorldOf, shareWorld } from "./world";

/** Every bench of `bun run bench`, by the name its goal lines carry. */
const BENCHES = [
  ["foundation", "test/bench/run.ts"],
  ["papers", "test/bench/papers.ts"],
  ["searchCache", "test/bench/searchCache.ts"],
  ["medication", "test/bench/references.ts"],
  ["conditions", "test/bench/conditions.ts"],
  ["chat", "test/bench/chat.ts"],
  ["mcp", "test/bench/mcp.ts"],
] as const;

const only = process.env.BENCH_QUICK_ONLY?.split(",").filter(Boolean);
const logs = mkdtempSync(join(tmpdir(), "bench-quick-"));
const goals: GoalResult[] = [];
const failures: string[] = [];
const started = performance.now();

const world = await benchWorld();
const loaders = await startWorkers(world.deps, { queues: ["papers", "conditions"] });
await loadDemoData(world.childEnv);
// The benches start the workers they measure: these would take their jobs too.
await loaders.close();
const shared = shareWorld(sharedWorldOf(world, true));
console.error(`bench:quick: world ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);

for (const [name, script] of BENCHES) {
  if (only && !only.includes(name)) continue;
  const log = join(logs, `${name}.log`);
  const benchStarted = performance.now();
  const child = Bun.spawn([process.execPath, script], {
    env: { ...process.env, ...shared, BENCH_QUICK: "1" },
    stdout: "pipe",
    stderr: Bun.file(log),
  });
  const output = await new Response(child.stdout).text();
  const code = await child.exited;
  await Bun.write(`${log}.out`, output);
  const seconds = (performance.now() - benchStarted) / 1000;
  const found = parseGoals(output);
  goals.push(...found);
  console.error(`bench:quick: ${name} ${code === 0 ? "done" : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s`);
  if (code !== 0 || found.length === 0) failures.push(`${name} (exit ${code}; see ${log} and ${log}.out)`);
}

await world.cleanup();

const shown = (value: number, unit: GoalResult["unit"]) =>
  unit === "×" ? `${value.toFixed(2)}×` : `${value.toFixed(unit === "ms" ? 2 : 1)} ${unit}`;
console.log(`\nbench:quick, ${new Date().toISOString()}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
console.log("| bench | measure | value | goal | verdict |");
console.log("|---|---|---|---|---|");
for (const goal of goals) {
  const verdict = grossRegression(goal)
    ? "**GROSS REGRESSION** (worse than 2× the goal)"
    : goalMet(goal)
      ? "met"
      : "not met";
  const bound = `${goal.kind === "max" ? "≤" : "≥"} ${shown(goal.goal, goal.unit)}`;
  console.log(`| ${goal.bench} | ${goal.measure} | ${shown(goal.value, goal.unit)} | ${bound} | ${verdict} |`);
}
const gross = goals.filter(grossRegression);
for (const failure of failures) console.log(`\nFAILED: ${failure}`);
if (gross.length > 0) console.log(`\n${gross.length} gross regression(s): a ratio worse than twice its goal.`);
console.log(`\nLogs: ${logs}`);
process.exit(failures.length > 0 || gross.length > 0 ? 1 : 0);
