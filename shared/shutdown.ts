import { closeDeps, type Deps } from "./deps";

/**
 * On SIGTERM or SIGINT (once): runs `stop` (stop taking work, let in-flight work finish), closes
 * the process's clients and exits 0. Used by the API and worker entry points.
 */
export function exitGracefully(name: string, deps: Deps, stop: () => Promise<unknown>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.log.info(`${name} stopping`, { signal });
    await stop();
    await closeDeps(deps);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
