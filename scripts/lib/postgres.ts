import { existsSync, readdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Managed, StartupError, tcpOpen, waitFor, which } from "./processes";

const INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL";

/**
 * Makes sure PostgreSQL answers at `url`. An explicit DATABASE_URL is only checked. The local
 * default is started when it is down: through the distribution's cluster tool when a cluster
 * exists, otherwise as a child process with its data under `<dataDir>/postgres`.
 */
export async function ensurePostgres(url: string, explicit: boolean, dataDir: string): Promise<Managed | undefined> {
  const { hostname, port } = new URL(url);
  const portNumber = Number(port || 5432);
  if (await tcpOpen(hostname, portNumber)) return undefined;
  if (explicit) throw new StartupError(`PostgreSQL at ${hostname}:${portNumber} (DATABASE_URL) is not reachable.`);

  const clusterTool = which("pg_ctlcluster");
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : [];
  const version = versions.find((v) => existsSync(`/etc/postgresql/${v}/main`));
  if (clusterTool && version) {
    const result = Bun.spawnSync([clusterTool, "--skip-systemctl-redirect", version, "main", "start"]);
    if (result.exitCode !== 0) {
      throw new StartupError(`pg_ctlcluster ${version} main start failed: ${result.stderr.toString().trim()}`);
    }
    await waitFor("PostgreSQL", () => tcpOpen(hostname, portNumber));
    return undefined;
  }
  return startOwnCluster(hostname, portNumber, dataDir);
}

async function startOwnCluster(host: string, port: number, dataDir: string): Promise<Managed> {
  const binDirs = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
  const initdb = which("initdb", binDirs);
  const server = which("postgres", binDirs);
  if (!initdb || !server) {
    throw new StartupError(`PostgreSQL is not running at ${host}:${port} and no server is installed: ${INSTALL_HINT}.`);
  }
  if (process.getuid?.() === 0) {
    throw new StartupError(
      `PostgreSQL is not running at ${host}:${port}; it refuses to run as root: start it as the postgres user, or set DATABASE_URL.`,
    );
  }
  const dir = resolve(dataDir, "postgres");
  if (!existsSync(join(dir, "PG_VERSION"))) {
    await mkdir(dir, { recursive: true });
    const init = Bun.spawnSync([initdb, "-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    if (init.exitCode !== 0) throw new StartupError(`initdb failed: ${init.stderr.toString().trim()}`);
  }
  const child = Bun.spawn([server, "-D", dir, "-p", String(port), "-h", host, "-k", dir], {
    stdout: Bun.file(join(dir, "server.log")),
    stderr: Bun.file(join(dir, "server.log")),
  });
  await waitFor("PostgreSQL", () => tcpOpen(host, port));
  return { name: "postgres", process: child };
}
