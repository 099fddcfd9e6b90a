import { closeDeps, type Deps } from "./deps";

/**
 * On SIGTERM or SIGINT (once): runs `stop` (stop taking work, let in-flight work finish), closes
 * the process's clients and exits 0; exits 1 if that fails or takes over 15 s. Used by the API and
 * worker entry points.
 */
const HARD_EXIT_MS = 15_000;

export function exitGracefully(name: string, deps: Deps, stop: () => Promise<unknown>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.log.info(`${name} stopping`, { signal });
    // Work that will not finish must not keep the process (and a deploy) hanging.
    setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
    try {
      await stop();
      await closeDeps(deps);
      process.exit(0);
    } catch (error) {
      deps.log.error(`${name} did not stop cleanly`, { error });
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
