import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { createApp } from "../../api/app";
import { freePort } from "../../scripts/lib/processes";
import { CHROMIUM, chromiumInstalled, INSTALL_CHROMIUM } from "../../scripts/prerequisites";
import type { Deps } from "../../shared/context/deps";

export const ARTIFACTS = join(import.meta.dir, "..", "artifacts");
const SCREENSHOTS = join(import.meta.dir, "..", "..", "docs", "screenshots");

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };

/** Chromium's stand-in microphone (a beep) that needs no permission prompt, for voice notes. */
export const FAKE_MICROPHONE = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"];

/**
 * Headless Chromium from Debian's chromium package at /usr/bin/chromium (no browser is downloaded;
 * `bun run test` installs it first when it is missing, see scripts/prerequisites.ts), or a
 * failure that says how to install it (never a silent skip).
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!chromiumInstalled()) {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM}, and it is not there. \`bun run test\` installs it first (bun scripts/prerequisites.ts test); by hand: \`${INSTALL_CHROMIUM}\`.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

export interface Site {
  url: string;
  deps: Deps;
  stop(): Promise<void>;
}

/**
 * The real API on a free port, as `bun run start` serves it. PUBLIC_URL is this server, so the
 * signed upload URLs it hands out point back at it.
 */
export async function startSite(base: Deps): Promise<Site> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const deps: Deps = { ...base, env: { ...base.env, PUBLIC_URL: url } };
  const app = createApp(deps).listen({ hostname: "127.0.0.1", port, idleTimeout: 60 });
  return {
    url,
    deps,
    stop: async () => {
      await app.stop(true);
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = Bun.file(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"));

/**
 * axe-core's WCAG 2.0/2.1 A and AA rules (labels, names, contrast, landmarks, ARIA) on the page as
 * it is now. The script is evaluated through the DevTools protocol, which the page's CSP does not
 * restrict, so the page itself runs unchanged.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await AXE_SOURCE.text());
  return (await page.evaluate(`axe
    .run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
    .then((result) => result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((node) => node.target.join(" ")),
    })))`)) as AxeViolation[];
}

/** `UPDATE_SCREENSHOTS=1 bun run test test/browser` also refreshes the README's screenshots. */
const UPDATE_DOCS = process.env.UPDATE_SCREENSHOTS === "1";

/** A full-page screenshot into test/artifacts/ (gitignored), and into docs/screenshots/ when asked to. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (UPDATE_DOCS) {
    await mkdir(SCREENSHOTS, { recursive: true });
    await copyFile(path, join(SCREENSHOTS, `${name}.png`));
  }
  return path;
}
