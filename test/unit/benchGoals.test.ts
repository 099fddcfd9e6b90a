import { describe, expect, test } from "bun:test";
import { slowerBy } from "../bench/calibrate";
import { type GoalResult, goalMet, grossLimit, grossRegression, parseGoals, reportGoal } from "../bench/goals";

/** The quick bench's gate (test/bench/goals.ts): what counts as met, and what fails CI. */
const ratio = (value: number): GoalResult => ({
  bench: "mcp",
  measure: "MCP tools/call p50 / REST p50",
  value,
  goal: 1.5,
  kind: "max",
  unit: "×",
});
const share = (value: number): GoalResult => ({
  bench: "foundation",
  measure: "throughput ratio",
  value,
  goal: 0.5,
  kind: "min",
  unit: "×",
});

describe("bench goals", () => {
  test("a maximum is met at or under its goal; a minimum at or over it", () => {
    expect(goalMet(ratio(1.5))).toBe(true);
    expect(goalMet(ratio(1.51))).toBe(false);
    expect(goalMet(share(0.5))).toBe(true);
    expect(goalMet(share(0.49))).toBe(false);
  });

  test("a gross regression is worse than twice the goal: above 2× a maximum, below half a minimum", () => {
    expect(grossRegression(ratio(2.9))).toBe(false);
    expect(grossRegression(ratio(3.01))).toBe(true);
    expect(grossRegression(share(0.26))).toBe(false);
    expect(grossRegression(share(0.24))).toBe(true);
  });

  test("a goal the last full run did not meet is held to twice its recorded value", () => {
    expect(grossLimit(ratio(1), 2.6)).toBeCloseTo(5.2);
    expect(grossRegression(ratio(4), 2.6)).toBe(false);
    expect(grossRegression(ratio(5.3), 2.6)).toBe(true);
    expect(grossLimit(share(1), 0.4)).toBeCloseTo(0.2);
    // A met goal's record does not loosen the gate.
    expect(grossLimit(ratio(1), 1.2)).toBeCloseTo(3);
    expect(grossLimit(share(1), 0.8)).toBeCloseTo(0.25);
  });

  test("goal lines round-trip through a bench's output", () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      reportGoal(ratio(2.25));
    } finally {
      console.log = log;
    }
    expect(parseGoals(["| a table |", ...lines, "done"].join("\n"))).toEqual([ratio(2.25)]);
  });
});

describe("absolute times on a slower machine", () => {
  const firstChunk = (value: number): GoalResult => ({
    bench: "chat",
    measure: "added first chunk p50",
    value,
    goal: 3,
    kind: "max",
    unit: "ms",
  });

  test("an absolute time's bound scales with how much slower the machine is; a ratio's does not", () => {
    expect(grossLimit(firstChunk(1), undefined, 2.5)).toBeCloseTo(15);
    expect(grossRegression(firstChunk(14), undefined, 2.5)).toBe(false);
    expect(grossRegression(firstChunk(16), undefined, 2.5)).toBe(true);
    expect(grossLimit(ratio(1), undefined, 2.5)).toBeCloseTo(3);
  });

  test("slower is measured against the recorded calibration, at least 1 and at most 4", () => {
    expect(slowerBy(20, 10)).toBeCloseTo(2);
    expect(slowerBy(5, 10)).toBe(1);
    expect(slowerBy(100, 10)).toBe(4);
    expect(slowerBy(20, undefined)).toBe(1);
  });
});
