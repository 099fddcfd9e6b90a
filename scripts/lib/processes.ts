import type { Subprocess } from "bun";

/** A child process this run started and must stop on exit. */
export interface Managed {
  name: string;
  process: Subprocess;
}

export class StartupError extends Error {}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopProcess(child: Subprocess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Stops managed processes in reverse start order (app processes before their dependencies). */
export async function stopAll(managed: Managed[]): Promise<void> {
  for (const item of [...managed].reverse()) await stopProcess(item.process);
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      // A check that knows the wait is hopeless (the process died) says so with a StartupError.
      if (error instanceof StartupError) throw error;
    }
    await Bun.sleep(100);
  }
  throw new StartupError(`${what} did not become ready within ${timeoutMs / 1000} s`);
}

export async function tcpOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    Bun.connect({
      hostname: host,
      port,
      socket: {
        open(socket) {
          clearTimeout(timer);
          socket.end();
          resolve(true);
        },
        error() {
          clearTimeout(timer);
          resolve(false);
        },
        data() {},
      },
    }).catch(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/** A TCP port that was free a moment ago on loopback. */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = server;
  server.stop(true);
  return port;
}

export function which(binary: string, extraDirs: string[] = []): string | undefined {
  return Bun.which(binary) ?? extraDirs.map((dir) => `${dir}/${binary}`).find((path) => Bun.file(path).size > 0);
}
