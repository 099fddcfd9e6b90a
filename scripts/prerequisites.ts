/**
 * Runs first in `bun run test` (`bun scripts/prerequisites.ts test`) and `bun run bench`
 * (`… bench`). It makes sure that the programs they need outside the checkout and node_modules are
 * on the machine:
 * - test: Debian's Chromium at /usr/bin/chromium, which the browser tests drive through
 *   playwright-core (no browser download), and `redis-server` with `redis-cli`, with which the Redis
 *   Cluster test builds its private cluster;
 * - bench: `wrk`, the HTTP load generator the benchmarks measure with.
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

interface Program {
  present: () => boolean;
  name: string;
  /** Its Debian package. */
  pkg: string;
}

const onPath = (name: string, pkg: string): Program => ({ present: () => Bun.which(name) !== null, name, pkg });

/** The programs each command runs. */
const NEEDS: Record<string, Program[]> = {
  test: [
    { present: chromiumInstalled, name: CHROMIUM, pkg: "chromium" },
    onPath("redis-server", "redis-server"),
    onPath("redis-cli", "redis-tools"),
  ],
  bench: [onPath("wrk", "wrk")],
};

const purpose = process.argv[2] ?? "test";
let packages: string[] = [];

function fail(why: string): never {
  const command = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(" ")}`;
  console.error(`\n${purpose} prerequisites: ${why}`);
  console.error(`\`bun run ${purpose}\` needs Debian's ${packages.join(", ")}. Install with:\n\n  ${command}\n`);
  console.error(`then run \`bun run ${purpose}\` again.`);
  process.exit(1);
}

function run(command: string[]): void {
  console.log(`${purpose} prerequisites: $ ${command.join(" ")}`);
  const result = Bun.spawnSync(command, {
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (!result.success) fail(`\`${command.join(" ")}\` failed (exit code ${result.exitCode ?? "none"}).`);
}

function install(missing: Program[]): void {
  packages = missing.map((program) => program.pkg);
  console.log(
    `${purpose} prerequisites: ${missing.map((p) => p.name).join(", ")} missing; installing ${packages.join(" ")}.`,
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
  console.log(`${purpose} prerequisites: ${packages.join(", ")} installed.`);
}

if (import.meta.main) {
  const programs = NEEDS[purpose];
  if (!programs) {
    console.error(`usage: bun scripts/prerequisites.ts ${Object.keys(NEEDS).join("|")}`);
    process.exit(2);
  }
  const missing = programs.filter((program) => !program.present());
  if (missing.length > 0) install(missing);
}
