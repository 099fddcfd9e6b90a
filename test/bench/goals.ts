/**
 * One line per goal a bench measured, so `bun run bench` and `bun run bench:quick`
 * (test/bench/suite.ts) can gather every bench's verdicts into one table. A bench calls
 * `reportGoal` once per goal after printing its own tables; the line starts with GOAL_PREFIX and
 * holds the result as JSON.
 */

export const GOAL_PREFIX = "BENCH-GOAL ";

export interface GoalResult {
  /** The bench file's short name: foundation, papers, searchCache, conditions, medication, chat, mcp. */
  bench: string;
  /** What is measured, as the goal table names it ("MCP tools/call p50 / REST p50, 2025-11-25"). */
  measure: string;
  /** The measured value, in `unit`. */
  value: number;
  /** The goal's bound, in `unit`. */
  goal: number;
  /** "max": the value must be at most the goal; "min": at least. */
  kind: "max" | "min";
  unit: "×" | "ms" | "µs";
}

export function goalMet(result: GoalResult): boolean {
  return result.kind === "max" ? result.value <= result.goal : result.value >= result.goal;
}

/**
 * The value past which a quick run counts as a gross regression: twice the goal (above 2× a
 * maximum, below half a minimum), so CI's noise cannot block a submission. A goal the last full
 * run did not meet (`recorded`, from recorded.json) is held to twice that recorded value instead:
 * the gate then still catches it getting much worse, without failing every run on a goal that is
 * known to be out of reach on these machines.
 */
export function grossLimit(result: GoalResult, recorded?: number, slower = 1): number {
  const known = recorded !== undefined && !goalMet({ ...result, value: recorded }) ? recorded : result.goal;
  // An absolute time on a machine `slower` times slower than the recorded one (calibrate.ts) takes
  // that much longer; a ratio's two sides both slow down.
  const scale = result.unit === "×" ? 1 : slower;
  return result.kind === "max" ? 2 * known * scale : known / 2 / scale;
}

export function grossRegression(result: GoalResult, recorded?: number, slower = 1): boolean {
  const limit = grossLimit(result, recorded, slower);
  return result.kind === "max" ? result.value > limit : result.value < limit;
}

/** Where the full run keeps each goal's value, for the quick run's gate. */
export const RECORDED_FILE = "test/bench/recorded.json";

export interface Recorded {
  measuredAt: string;
  machine: string;
  /** The machine's calibration workload, in ms (calibrate.ts); absent in records made before it existed. */
  calibrationMs?: number;
  /** By `goalKey`. */
  values: Record<string, number>;
}

export const goalKey = (result: Pick<GoalResult, "bench" | "measure">) => `${result.bench}: ${result.measure}`;

export function reportGoal(result: GoalResult): void {
  console.log(`${GOAL_PREFIX}${JSON.stringify(result)}`);
}

/** Every goal line in a bench's output. */
export function parseGoals(output: string): GoalResult[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith(GOAL_PREFIX))
    .map((line) => JSON.parse(line.slice(GOAL_PREFIX.length)) as GoalResult);
}

/** True when the bench runs inside `bun run bench:quick`: shorter loads, fewer rounds. */
export const QUICK = process.env.BENCH_QUICK === "1";
