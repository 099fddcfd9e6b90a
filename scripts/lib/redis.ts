import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Managed, StartupError, tcpOpen, waitFor, which } from "./processes";

/**
 * Makes sure Redis answers at `url`. An explicit REDIS_URL is only checked; the local default is
 * started as a child process when it is down, with AOF persistence under `<dataDir>/redis` and
 * `noeviction` (BullMQ must never lose a job key to eviction).
 */
export async function ensureRedis(url: string, explicit: boolean, dataDir: string): Promise<Managed | undefined> {
  const { hostname, port } = new URL(url);
  const portNumber = Number(port || 6379);
  if (await tcpOpen(hostname, portNumber)) return undefined;
  if (explicit) throw new StartupError(`Redis at ${hostname}:${portNumber} (REDIS_URL) is not reachable.`);
  const server = which("redis-server");
  if (!server) {
    throw new StartupError(
      `Redis is not running at ${hostname}:${portNumber} and redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL.`,
    );
  }
  const dir = resolve(dataDir, "redis");
  await mkdir(dir, { recursive: true });
  const args = ["--port", String(portNumber), "--bind", hostname, "--dir", dir, "--appendonly", "yes"];
  const child = Bun.spawn([server, ...args, "--maxmemory-policy", "noeviction", "--daemonize", "no"], {
    stdout: Bun.file(join(dir, "server.log")),
    stderr: Bun.file(join(dir, "server.log")),
  });
  await waitFor("Redis", () => tcpOpen(hostname, portNumber));
  return { name: "redis", process: child };
}
