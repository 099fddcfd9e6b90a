/**
 * New chat turns start at most a few per event-loop turn. Without this, a burst of chat requests
 * runs every request's synchronous work (auth, validation, routing, building the job and the
 * insert) back to back in one event-loop turn, and the chunks of turns already streaming, which
 * arrive over Redis pub/sub, wait behind all of it. Four per turn measured the lowest relay delay
 * under a burst of 200 chats (fewer gave the same delay, more a longer one; docs/benchmarks.md).
 */
export const TURN_STARTS_PER_LOOP_TURN = 4;

/** Lets at most `perLoopTurn` starts through per event-loop turn, first come first served. */
export interface StartPacer {
  /** Undefined when this start may go now; otherwise a promise that resolves in a later event-loop turn. */
  slot(): Promise<void> | undefined;
}

/** One per process (`Deps.turnStarts`): the limit holds across every surface that starts turns. */
export function createStartPacer(perLoopTurn = TURN_STARTS_PER_LOOP_TURN): StartPacer {
  let started = 0;
  let scheduled = false;
  const waiting: (() => void)[] = [];
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextLoopTurn);
  };
  function nextLoopTurn(): void {
    scheduled = false;
    started = 0;
    while (started < perLoopTurn && waiting.length > 0) {
      started += 1;
      (waiting.shift() as () => void)();
    }
    // Keep counting while starts go: the next ones must not all go at once either.
    if (started > 0) schedule();
  }
  return {
    slot() {
      schedule();
      if (started < perLoopTurn && waiting.length === 0) {
        started += 1;
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}
