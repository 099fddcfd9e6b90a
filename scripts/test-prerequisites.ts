/**
 * Runs first in `bun run test`. It makes sure that the one thing the suite needs outside the
 * checkout and node_modules is on the machine: Debian's Chromium at /usr/bin/chromium, which the
 * browser tests drive through playwright-core (no browser download).
 *
 * Present: prints nothing and exits 0.
 * Missing: installs it from Debian's packages with `apt-get update` and then
 * `apt-get install -y --no-install-recommends chromium`. It uses `sudo` when not root and prints
 * each command before running it.
 * Cannot install: exits 1 with the command for a person to run. The suite does not start then,
 * so the browser tests are never skipped quietly.
 *
 * PostgreSQL, Redis and Meilisearch are not handled here: the test preload starts them.
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

function fail(why: string): never {
  console.error(`\ntest prerequisites: ${why}`);
  console.error(`The browser tests need Debian's Chromium at ${CHROMIUM}. Install it with:\n\n  ${INSTALL_CHROMIUM}\n`);
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

function installChromium(): void {
  console.log(`test prerequisites: ${CHROMIUM} is missing; installing Debian's chromium package.`);
  if (!Bun.which("apt-get")) fail("apt-get is missing, so Debian's chromium package cannot be installed.");
  const root = process.getuid?.() === 0;
  if (!root && !Bun.which("sudo")) fail("not running as root and `sudo` is not available.");
  const sudo = root ? [] : ["sudo", "env", "DEBIAN_FRONTEND=noninteractive"];
  run([...sudo, "apt-get", "update"]);
  run([...sudo, "apt-get", "install", "-y", "--no-install-recommends", "chromium"]);
  if (!chromiumInstalled()) fail(`the chromium package was installed but ${CHROMIUM} is still not there.`);
  console.log(`test prerequisites: Chromium installed at ${CHROMIUM}.`);
}

if (import.meta.main && !chromiumInstalled()) installChromium();
