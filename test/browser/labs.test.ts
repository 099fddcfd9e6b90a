import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startWorkers, type Workers } from "../../workers/runner";
import { DESKTOP, launchChromium, PHONE, type Site, screenshot, startSite } from "../helpers/browser";
import { testDeps } from "../helpers/infra";
import { oneLineReport, prosePdf } from "../helpers/labReports";
import {
  axeClean,
  cells,
  drawnChart,
  enterPanels,
  importFile,
  type LabsAccount,
  labsAccount,
  ready,
  textOf,
} from "../helpers/labsPage";

/**
 * The Labs page in headless Chromium against the real API with an uploads worker: panels entered
 * through the website's API listed newest first with their flags in words, one test's chart with
 * its reference band and points and the same values as text, deleting a panel after confirming,
 * and importing generated lab reports (read into panels, a 202 followed until they appear, a PDF
 * that is not a report refused). axe-core runs on every state.
 */

let site: Site;
let slowSite: Site;
let workers: Workers;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let account: LabsAccount;
let ids: Awaited<ReturnType<typeof enterPanels>>;

beforeAll(async () => {
  const deps = await testDeps();
  site = await startSite(deps);
  // The same service answering imports without waiting for the worker: always 202 (cookies are per host, not port).
  slowSite = await startSite({ ...deps, env: { ...deps.env, LAB_IMPORT_WAIT_MS: 0 } });
  workers = await startWorkers(site.deps, { queues: ["uploads"] });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP, baseURL: site.url });
  page = await context.newPage();
  account = await labsAccount(site, context);
  ids = await enterPanels(account);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await slowSite?.stop();
  await site?.stop();
});

const panel = (id: string) => page.locator(`article.lab-panel[data-panel-id="${id}"]`);
const row = (id: string, test: string) =>
  panel(id).locator("tbody tr", { has: page.getByRole("rowheader", { name: test, exact: true }) });

describe("the Labs page", () => {
  test("lists the panels newest first with flagged values marked in words", async () => {
    await page.goto("/health/labs");
    await ready(page);
    await expect(page.getByRole("link", { name: "Labs" }).getAttribute("aria-current")).resolves.toBe("page");
    await expect(
      page.locator("article.lab-panel").evaluateAll((all) => all.map((one) => one.getAttribute("data-panel-id"))),
    ).resolves.toEqual([ids.winter, ids.autumn, ids.spring]);
    await expect(textOf(panel(ids.winter).locator("h3"))).resolves.toBe("Jan 20, 2026 · Laboratory not named");
    await expect(textOf(panel(ids.autumn).locator("h3"))).resolves.toBe("Nov 18, 2025, 8:30 AM · Riverside Pathology");
    await expect(panel(ids.winter).locator(".hint").textContent()).resolves.toBe(
      "Entered by hand · 4 results, 3 flagged",
    );
    // The marker is text (H, L, abnormal), with the word for screen readers; the colour is extra.
    const flags = (id: string) =>
      panel(id)
        .locator("tbody tr")
        .evaluateAll((rows) =>
          rows.map((r) => [r.querySelector("th")?.textContent, r.lastChild?.textContent, r.className]),
        );
    await expect(flags(ids.winter)).resolves.toEqual([
      ["Glucose", "H (high)", "flagged"],
      ["Hemoglobin", "L (low)", "flagged"],
      ["Hepatitis C antibody", "abnormal", "flagged"],
      ["Urine protein", "", ""],
    ]);
    await expect(flags(ids.spring)).resolves.toEqual([
      ["Glucose", "", ""],
      ["Hemoglobin", "", ""],
    ]);
    await expect(cells(row(ids.winter, "Glucose"))).resolves.toBe("6.4 | mmol/L | 3.9–5.5 | H (high)");
    await expect(panel(ids.winter).locator(".flag").allTextContents()).resolves.toEqual(["H", "L", "abnormal"]);
    // Every result downloads as CSV (and as a FHIR bundle) with the session.
    const href = await page.getByRole("link", { name: "CSV" }).getAttribute("href");
    expect(href).toBe("/api/health/labs/export?format=csv");
    const download = await context.request.get(`${site.url}${href}`);
    expect(download.headers()["content-disposition"]).toStartWith("attachment;");
    expect((await download.text()).trim().split("\n")).toHaveLength(1 + 7);
    await expect(page.getByRole("link", { name: "FHIR R4 bundle" }).getAttribute("href")).resolves.toBe(
      "/api/health/labs/export?format=fhir",
    );
    await axeClean(page, "panels listed");
  }, 30_000);

  test("charts one test over time: points, the reference band and the same values as text", async () => {
    await expect(page.locator("#analyte-view").isVisible()).resolves.toBe(false);
    await page.getByLabel("Test", { exact: true }).selectOption({ label: "Glucose (3 results)" });
    const chart = page.locator("#analyte-chart svg[role='img']");
    await chart.waitFor();
    await expect(chart.locator("title#lab-chart-title").textContent()).resolves.toStartWith(
      "Glucose over time in mmol/L: 3 results; the shaded band is the reference range.",
    );
    // Oldest first, the mg/dL result converted to the newest report's unit; the band is the printed
    // 3.9–5.5 around the two mmol/L reports (the mg/dL one's range is not in this unit).
    const drawn = await drawnChart(page);
    expect(drawn.points.map(({ shape, value, flag }) => [shape, value, flag])).toEqual([
      ["circle", "5.1", "normal"],
      ["circle", "5.495", "normal"],
      ["path", "6.4", "high"],
    ]);
    expect(drawn.labels).toEqual(["H"]);
    expect(drawn.bands.map(({ low, high }) => [low, high])).toEqual([
      ["3.9", "5.5"],
      ["3.9", "5.5"],
    ]);
    const [inRange, , high] = drawn.points;
    const [first, last] = drawn.bands;
    expect(inRange?.middle).toBeGreaterThan(first?.top ?? Infinity);
    expect(inRange?.middle).toBeLessThan(first?.bottom ?? -Infinity);
    // The high value is drawn above its band (SVG y grows downwards).
    expect(high?.top).toBeLessThan(last?.top ?? -Infinity);
    // The text alternative: a summary and a table of every value, as printed and in the chart's unit.
    await expect(textOf(page.locator("#analyte-summary"))).resolves.toBe(
      "3 results of Glucose from May 2, 2025 to Jan 20, 2026; latest 6.4 mmol/L (high); lowest 5.1, highest 6.4; flagged: 1 high. The band is left out where a report gave no range in mmol/L.",
    );
    const rows = page.locator("#analyte-table tbody tr");
    await expect(cells(rows.nth(1))).resolves.toBe("Nov 18, 2025, 8:30 AM | 5.495 mmol/L | 99 mg/dL | 70–99 mg/dL | ");
    await expect(cells(rows.nth(2))).resolves.toBe(
      "Jan 20, 2026 | 6.4 mmol/L | 6.4 mmol/L | 3.9–5.5 mmol/L | H (high)",
    );
    await axeClean(page, "glucose chart");
    await screenshot(page, "labs-desktop");
    // A text-only test has no chart, only its table.
    await page.getByLabel("Test", { exact: true }).selectOption({ label: "Hepatitis C antibody (1 result)" });
    await page.locator("#analyte-chart p", { hasText: "No numeric values" }).waitFor();
    await expect(cells(rows.first())).resolves.toBe("Jan 20, 2026 | — | Reactive | Non-reactive | abnormal");
  }, 30_000);

  test("deletes a panel after confirming, from the keyboard; the chart follows", async () => {
    await page.getByLabel("Test", { exact: true }).selectOption({ label: "Glucose (3 results)" });
    await page.locator("#analyte-chart svg .point").nth(2).waitFor();
    const remove = panel(ids.spring).getByRole("button", {
      name: "Delete the panel of May 2, 2025 · Northside Clinical Laboratory",
    });
    // Dismissing the confirmation keeps it.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await remove.focus();
    await page.keyboard.press("Enter");
    await expect(page.locator("article.lab-panel").count()).resolves.toBe(3);
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await remove.focus();
    await page.keyboard.press("Enter");
    await page.locator("#panels-status", { hasText: "Deleted the panel of May 2, 2025" }).waitFor();
    expect(asked).toBe(
      "Delete the panel of May 2, 2025 · Northside Clinical Laboratory (2 results)? This cannot be undone.",
    );
    await expect(panel(ids.spring).count()).resolves.toBe(0);
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe("panels-heading");
    expect((await context.request.get(`${site.url}/api/health/labs/${ids.spring}`)).status()).toBe(404);
    // Still the chosen test, now with two results.
    await expect(page.getByLabel("Test", { exact: true }).locator("option:checked").textContent()).resolves.toBe(
      "Glucose (2 results)",
    );
    await expect(page.locator("#analyte-chart svg .point").count()).resolves.toBe(2);
    await axeClean(page, "after deleting");
  }, 30_000);

  test("imports a generated lab report through the page: every result and flag listed as printed", async () => {
    const report = await oneLineReport();
    await importFile(page, "northside.pdf", "application/pdf", report.pdf);
    const status = page.locator("#import-status");
    await status.filter({ hasText: "Imported 1 panel" }).waitFor({ timeout: 25_000 });
    const { panels } = await account.get<{ panels: { id: string; source: { fileId: string } | null }[] }>(
      "/api/health/labs",
    );
    const imported = panels.find((one) => one.source !== null);
    expect(imported).toBeDefined();
    const article = panel(imported?.id ?? "");
    await expect(textOf(article.locator("h3"))).resolves.toBe("Mar 14, 2026, 8:30 AM · Northside Clinical Laboratory");
    await expect(article.locator(".hint").textContent()).resolves.toStartWith("Imported from a report, page 1");
    const shown = await article
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((cell) => cell.textContent ?? "")));
    const marker = { high: "H (high)", low: "L (low)", abnormal: "abnormal", normal: "" } as const;
    expect(shown).toEqual(
      report.truth.results.map((result) => [
        result.name,
        result.valueText,
        result.unit ?? "",
        result.rangeText ?? "—",
        result.flag ? marker[result.flag] : "",
      ]),
    );
    await expect(status.textContent()).resolves.toBe(
      `Imported 1 panel with ${report.truth.results.length} results (${report.truth.results.filter((r) => r.flag && r.flag !== "normal").length} flagged) from northside.pdf.`,
    );
    await axeClean(page, "after importing");
  }, 40_000);

  test("an import still being read shows 'processing' and the list refreshes until it appears", async () => {
    // The same session on the server that answers 202 at once.
    await page.goto(`${slowSite.url}/health/labs`);
    await ready(page);
    const before = await page.locator("article.lab-panel").count();
    const report = await oneLineReport();
    await importFile(page, "again.pdf", "application/pdf", report.pdf);
    const status = page.locator("#import-status");
    await status.filter({ hasText: "Processing: again.pdf is still being read" }).waitFor({ timeout: 20_000 });
    await axeClean(page, "import processing");
    await status.filter({ hasText: "Imported 1 panel" }).waitFor({ timeout: 30_000 });
    await expect(page.locator("article.lab-panel").count()).resolves.toBe(before + 1);
  }, 60_000);

  test("a PDF that is not a lab report, and files that are not PDFs, are refused with the reason", async () => {
    await page.goto(`${site.url}/health/labs`);
    await ready(page);
    const status = page.locator("#import-status");
    await importFile(page, "notes.txt", "text/plain", "Glucose 5.1");
    await expect(status.textContent()).resolves.toBe("notes.txt is not a PDF. Choose the report as a PDF file.");
    const prose = await prosePdf([
      "The garden was quiet in the early morning. Nobody had walked on the wet grass yet, and the birds were only starting.",
    ]);
    await importFile(page, "letter.pdf", "application/pdf", prose);
    await status
      .filter({ hasText: "letter.pdf: No lab results could be read from this PDF: " })
      .waitFor({ timeout: 25_000 });
    await expect(status.getAttribute("data-tone")).resolves.toBe("error");
    await axeClean(page, "import refused");
    // Named .pdf but uploaded as text: the upload is ready, and the import answers 409 with why.
    await importFile(page, "results.pdf", "text/plain", "Glucose 5.1 mmol/L");
    await status.filter({ hasText: "results.pdf could not be imported: " }).waitFor({ timeout: 25_000 });
    await expect(status.textContent()).resolves.toBe(
      "results.pdf could not be imported: Only PDF lab reports can be imported; this upload is text/plain.",
    );
  }, 40_000);

  test("works at phone width (375 px) with the chart shown", async () => {
    const phone = await browser.newContext({
      viewport: PHONE,
      baseURL: site.url,
      isMobile: true,
      hasTouch: true,
      storageState: await context.storageState(),
    });
    try {
      const small = await phone.newPage();
      await small.goto("/health/labs");
      await ready(small);
      // By its LOINC code: the imports above added glucose results of their own.
      await small.getByLabel("Test", { exact: true }).selectOption("2345-7");
      await small.locator("#analyte-chart svg .point").nth(1).waitFor();
      expect(await small.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
      await axeClean(small, "phone");
      await screenshot(small, "labs-phone");
    } finally {
      await phone.close();
    }
  }, 30_000);
});
