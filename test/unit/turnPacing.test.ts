import { describe, expect, test } from "bun:test";
import { createStartPacer, TURN_STARTS_PER_LOOP_TURN } from "../../shared/core/pacing";

/** Counts event-loop turns: a macrotask chain that ticks once per turn while `running`. */
function loopTurnCounter() {
  const counter = { turn: 0, running: true };
  const tick = () => {
    if (!counter.running) return;
    counter.turn += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return counter;
}

describe("turn start pacing", () => {
  test("a burst starts a few per event-loop turn, first come first served, and every turn starts", async () => {
    const pacer = createStartPacer();
    const burst = TURN_STARTS_PER_LOOP_TURN * 5 + 2;
    const counter = loopTurnCounter();
    const startedAt: { index: number; turn: number }[] = [];
    const slots = Array.from({ length: burst }, (_, index) => {
      const slot = pacer.slot();
      if (!slot) {
        startedAt.push({ index, turn: counter.turn });
        return Promise.resolve();
      }
      return slot.then(() => {
        startedAt.push({ index, turn: counter.turn });
      });
    });
    await Promise.all(slots);
    counter.running = false;

    expect(startedAt.map((start) => start.index)).toEqual(Array.from({ length: burst }, (_, i) => i));
    const perTurn = new Map<number, number>();
    for (const { turn } of startedAt) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(TURN_STARTS_PER_LOOP_TURN);
    // The burst spread over at least as many event-loop turns as the pace requires.
    expect(perTurn.size).toBeGreaterThanOrEqual(Math.ceil(burst / TURN_STARTS_PER_LOOP_TURN));
  });

  test("a lone turn starts at once, also right after a burst has drained", async () => {
    const pacer = createStartPacer();
    for (let i = 0; i < TURN_STARTS_PER_LOOP_TURN * 3; i++) void pacer.slot();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(pacer.slot()).toBeUndefined();
    expect(createStartPacer().slot()).toBeUndefined();
  });
});
