import type { Subprocess } from "bun";
import { childEnvironment } from "../shared/core/env";

/**
 * WORKER_PROCESSES > 1: runs that many worker processes (this entry point again, each with
 * WORKER_PROCESSES=1 and the rest of the environment unchanged). A worker process's event loop uses
 * one core; with the offline model a turn is CPU-bound (a few ms each), so a burst of turns spreads
 * over the processes, which BullMQ balances by itself (each fetches when it has a free slot).
 * SIGTERM/SIGINT are passed on and this process exits once every worker has stopped; a worker that
 * exits on its own stops the others too, so a supervisor (systemd, Docker, `bun run start`) sees
 * the failure and restarts the set.
 */
export function superviseWorkerProcesses(count: number, entry: string): void {
  let stopping = false;
  let failed = false;
  const children: Subprocess[] = Array.from({ length: count }, () =>
    Bun.spawn([process.execPath, entry], {
      env: childEnvironment({ WORKER_PROCESSES: "1" }),
      stdout: "inherit",
      stderr: "inherit",
    }),
  );
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  for (const child of children) {
    void child.exited.then((code) => {
      if (!stopping) {
        failed = true;
        console.error(`worker process ${child.pid} exited (${code}); stopping the others`);
        stop("SIGTERM");
      }
    });
  }
  // A worker the passed-on signal ended before it had set up its own shutdown stopped cleanly too.
  const clean = (child: Subprocess) => child.exitCode === 0 || (child.exitCode === null && child.signalCode !== null);
  void Promise.all(children.map((child) => child.exited)).then(() =>
    process.exit(failed || !children.every(clean) ? 1 : 0),
  );
}
