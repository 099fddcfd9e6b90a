/**
 * Runs first in `bun run test`. It makes sure that the programs the suite needs outside the
 * checkout and node_modules are on the machine: Debian's Chromium at /usr/bin/chromium, which the
 * browser tests drive through playwright-core (no browser download), and `redis-server` with
 * `redis-cli`, with which the Redis Cluster test builds its private cluster.
 *
 * Present: prints nothing and exits 0.
 * Missing: installs the Debian packages with `apt-get update` and then
 * `apt-get install -y --no-install-recommends <packages>`. It uses `sudo` when not root and prints
 * each command before running it.
 * Cannot install: exits 1 with the command for a person to run. The suite does not start then,
 * so no test is ever skipped quietly.
 *
 * PostgreSQL, Redis and Meilisearch servers are not started here: the test preload starts them.
 */
import { accessSync, constants } from "node:fs";

/** Debian's chromium package puts its launcher here. */
export const CHROMIUM = "/usr/bin/chromium";

/** What a person runs to install it by hand. */
export const INSTALL_CHROMIUM = "sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium";

export function chromiumInstalled(): boolean {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Programs the suite runs, and the Debian package of each. */
const PROGRAMS: { present: () => boolean; name: string; pkg: string }[] = [
  { present: chromiumInstalled, name: CHROMIUM, pkg: "chromium" },
  { present: () => Bun.which("redis-server") !== null, name: "redis-server", pkg: "redis-server" },
  { present: () => Bun.which("redis-cli") !== null, name: "redis-cli", pkg: "redis-tools" },
];

let packages: string[] = [];

function fail(why: string): never {
  const command = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(" ")}`;
  console.error(`\ntest prerequisites: ${why}`);
  console.error(`The tests need Debian's ${packages.join(", ")}. Install with:\n\n  ${command}\n`);
  console.error("then run `bun run test` again.");
  process.exit(1);
}

function run(command: string[]): void {
  console.log(`test prerequisites: $ ${command.join(" ")}`);
  const result = Bun.spawnSync(command, {
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (!result.success) fail(`\`${command.join(" ")}\` failed (exit code ${result.exitCode ?? "none"}).`);
}

function install(missing: typeof PROGRAMS): void {
  packages = missing.map((program) => program.pkg);
  console.log(
    `test prerequisites: ${missing.map((p) => p.name).join(", ")} missing; installing ${packages.join(" ")}.`,
  );
  if (!Bun.which("apt-get")) fail("apt-get is missing, so the Debian packages cannot be installed.");
  const root = process.getuid?.() === 0;
  if (!root && !Bun.which("sudo")) fail("not running as root and `sudo` is not available.");
  const sudo = root ? [] : ["sudo", "env", "DEBIAN_FRONTEND=noninteractive"];
  run([...sudo, "apt-get", "update"]);
  run([...sudo, "apt-get", "install", "-y", "--no-install-recommends", ...packages]);
  const still = missing.filter((program) => !program.present());
  if (still.length > 0)
    fail(`the packages were installed but ${still.map((p) => p.name).join(", ")} is still missing.`);
  console.log(`test prerequisites: ${packages.join(", ")} installed.`);
}

if (import.meta.main) {
  const missing = PROGRAMS.filter((program) => !program.present());
  if (missing.length > 0) install(missing);
}
