import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createApp } from "../../api/app";
import { accessibilityViolations, DESKTOP, launchChromium, type Site, screenshot, startSite } from "../helpers/browser";
import { testDeps } from "../helpers/infra";
import { type WebUser, webCall, webUser } from "../helpers/website";

/**
 * Share links in headless Chromium against the real API on a real port: sign in through the form,
 * create a link on the dashboard (its URL shown once), open it in a fresh browser context with no
 * cookies and read the summary, see the open counted on the dashboard, revoke the link there, and
 * reload the fresh context onto the 404 page. axe-core runs on the dashboard and on the shared page.
 */
let site: Site;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let doctor: BrowserContext;
let doctorPage: Page;
let user: WebUser;
let shareUrl: string;

const CONDITION = "Asthma <since childhood>";

beforeAll(async () => {
  site = await startSite(await testDeps());
  // The account and its record are made through the API in process (the same database), as a
  // person would have done on the health pages before.
  const app = createApp(site.deps);
  user = await webUser(app, site.deps, { plan: "go" });
  const profile = { consentGiven: true, conditions: [CONDITION], medications: ["Salbutamol inhaler"] };
  expect((await webCall(app, user, "/api/health/profile", { method: "POST", body: profile })).status).toBe(200);
  for (const [collectedAt, value] of [
    ["2026-01-05T08:00:00.000Z", 5.1],
    ["2026-02-05T08:00:00.000Z", 6.3],
  ] as const) {
    const body = {
      collectedAt,
      results: [{ name: "Glucose", value, unit: "mmol/L", referenceRange: { text: "3.9–5.5" } }],
    };
    expect((await webCall(app, user, "/api/health/labs", { method: "POST", body })).status).toBe(201);
  }
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: DESKTOP,
    baseURL: site.url,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  page = await context.newPage();
  doctor = await browser.newContext({ viewport: DESKTOP });
  doctorPage = await doctor.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

const ready = (on: Page) => on.locator("body[data-ready='true']").waitFor();
const row = () => page.locator("#share-table tbody tr[data-share-link-id]", { hasText: "Dr. Okafor" });
const cellTexts = async () => (await row().locator("td").allTextContents()).map((text) => text.trim());

describe("share links on the dashboard", () => {
  test("sign in, create a link: its URL shown once with a copy button, listed as active", async () => {
    await page.goto("/");
    await ready(page);
    await page.getByLabel("Email").first().fill(user.email);
    await page.getByLabel("Password", { exact: true }).first().fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await ready(page);
    await page.locator("#share-table tbody td", { hasText: "No share links yet." }).waitFor();
    await page.getByLabel("Label (only you see it)").fill("Dr. Okafor");
    await page.getByLabel("Works for (days, 1–30)").fill("3");
    await page.getByRole("button", { name: "Create a share link" }).click();
    await page.locator("#share-status", { hasText: "Share link created" }).waitFor();
    shareUrl = await page.getByLabel("New share link").inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${site.url}/share/[A-Za-z0-9_-]{43}$`));
    await page.getByRole("button", { name: "Copy link" }).click();
    await page.locator("#share-status", { hasText: "Copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(shareUrl);
    await row().waitFor();
    const [label, , , status, opens, last] = await cellTexts();
    expect([label, status, opens, last]).toEqual(["Dr. Okafor", "active", "0", "never"]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, "share-links-desktop");
    // Shown once: after a reload the URL is nowhere on the page.
    await page.reload();
    await ready(page);
    expect(await page.content()).not.toContain(shareUrl.split("/share/")[1]);
  }, 30_000);

  test("a fresh browser context with no cookies opens the summary", async () => {
    expect(await doctor.cookies()).toEqual([]);
    const response = await doctorPage.goto(shareUrl);
    expect(response?.status()).toBe(200);
    await expect(doctorPage.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Shared health record");
    const text = (await doctorPage.locator("main").textContent()) ?? "";
    for (const shown of [CONDITION, "Salbutamol inhaler", "Glucose", "6.3 mmol/L", "↑ up", "read-only summary"]) {
      expect(text, shown).toContain(shown);
    }
    expect(text).not.toContain(user.email);
    expect(text).not.toContain("Dr. Okafor");
    await doctorPage.locator("svg.sparkline").first().waitFor();
    const fhir = doctorPage.getByRole("link", { name: "Download the whole record as FHIR R4 (JSON)" });
    const download = await doctor.request.get(new URL((await fhir.getAttribute("href")) as string, shareUrl).href);
    expect(download.status()).toBe(200);
    expect(download.headers()["content-type"]).toContain("application/fhir+json");
    expect(await accessibilityViolations(doctorPage)).toEqual([]);
    await screenshot(doctorPage, "share-page-desktop");
  }, 30_000);

  test("the dashboard counts the opens; Revoke (after confirming) makes the link a 404 in the fresh context", async () => {
    await page.reload();
    await ready(page);
    const [, , , , opens, last] = await cellTexts();
    expect(opens).toBe("2");
    expect(last).not.toBe("never");
    page.once("dialog", (dialog) => void dialog.accept());
    await row().getByRole("button", { name: "Revoke share link Dr. Okafor" }).click();
    await page.locator("#share-status", { hasText: "revoked" }).waitFor();
    await row()
      .locator("td", { hasText: /^revoked/ })
      .waitFor();
    await expect(row().getByRole("button").count()).resolves.toBe(0);

    const response = await doctorPage.reload();
    expect(response?.status()).toBe(404);
    await expect(doctorPage.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("This link does not work");
    expect(await doctorPage.locator("main").textContent()).not.toContain(CONDITION);
  }, 30_000);
});
