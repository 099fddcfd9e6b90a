/**
 * One line per goal a bench measured, so `bun run bench` and `bun run bench:quick`
 * (test/bench/suite.ts) can gather every bench's verdicts into one table. A bench calls `reportGoal` once per goal after printing
 * its own tables; the line starts with GOAL_PREFIX and holds the result as JSON.
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
 * A gross regression: the value is worse than twice its goal (above 2× a maximum, below half a
 * minimum). CI fails only on these, so a noisy shared machine cannot block a submission.
 */
export function grossRegression(result: GoalResult): boolean {
  return result.kind === "max" ? result.value > 2 * result.goal : result.value < result.goal / 2;
}

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
