import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { setPlan } from "../../shared/auth/accounts";
import { readHealthRecord } from "../../shared/healthRecords/read";
import type { RecordImportList } from "../../shared/healthRecords/schemas";
import { startWorkers, type Workers } from "../../workers/runner";
import { DESKTOP, launchChromium, PHONE, type Site, screenshot, startSite } from "../helpers/browser";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../helpers/healthRecordSamples";
import { testDeps } from "../helpers/infra";
import { axeClean, cells, drawnChart, ready, textOf } from "../helpers/labsPage";
import { TEST_PASSWORD, uniqueEmail } from "../helpers/website";

/**
 * Imported health records on the profile page, in headless Chromium against the real API with an
 * uploads worker: sign in, give consent, import a real Synthea patient (a FHIR R4 Bundle) through
 * the file input and read what was kept and skipped; the profile's sections fill in from it and
 * the Labs page charts one of its lab results; a C-CDA document about another patient is refused
 * until "Import anyway", and its allergies fill in; undoing each import empties the sections and
 * the chart again. axe-core runs on every state.
 */

let site: Site;
let workers: Workers;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let folder: string;
const email = uniqueEmail("records");
const files = { johnnie: "", ccd: "", condition: "", notes: "" };

const johnnie = readHealthRecord(readSample(SYNTHEA_BUNDLES.johnnie), "johnnie.json");
const ccd = readHealthRecord(readSample(CCDA_DOCUMENTS.hl7Ccd), "ccd.xml");
/** The Synthea patient's hemoglobin (LOINC 718-7): one result, so one point of the chart. */
const hemoglobin = johnnie.labResults.find((result) => result.loinc === "718-7");

beforeAll(async () => {
  site = await startSite(await testDeps());
  workers = await startWorkers(site.deps, { queues: ["uploads"] });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP, baseURL: site.url });
  page = await context.newPage();
  // The account exists on the go plan before the browser signs in (sign-up gives free).
  const signup = await fetch(`${site.url}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: TEST_PASSWORD }),
  });
  const { account } = (await signup.json()) as { account: { id: string } };
  await setPlan(
    { sql: site.deps.sql, redis: site.deps.redis, redisPrefix: site.deps.env.REDIS_PREFIX },
    { accountId: account.id, plan: "go" },
  );
  // The file input takes files from disk, under the names a person's download would have.
  folder = await mkdtemp(join(tmpdir(), "records-browser-"));
  files.johnnie = join(folder, "johnnie.json");
  files.ccd = join(folder, "ccd.xml");
  await writeFile(files.johnnie, readSample(SYNTHEA_BUNDLES.johnnie));
  await writeFile(files.ccd, readSample(CCDA_DOCUMENTS.hl7Ccd));
  files.condition = join(folder, "condition.json");
  await writeFile(files.condition, readSample(SYNTHEA_BUNDLES.condition));
  files.notes = join(folder, "notes.txt");
  await writeFile(files.notes, "Asthma since 2010.");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await site?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const status = () => page.locator("#record-status");
const importItem = (filename: string) => page.locator("#imports li.record-import", { hasText: filename });
/** A section's table rows as their cells (the row's name first), or [] when it says it is empty. */
const rowsOf = (section: Locator) =>
  section
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "")));
const section = (id: string) => page.locator(`#${id}`);

async function chooseAndImport(path: string): Promise<void> {
  await page.getByLabel("Health record (JSON or XML)").setInputFiles(path);
  await page.getByRole("button", { name: "Import record" }).click();
}

/** Records every text the import's status line shows, to read its progress afterwards. */
async function watchStatus(): Promise<() => Promise<string[]>> {
  await page.evaluate(`(() => {
    const status = document.getElementById("record-status");
    window.statusSeen = [];
    new MutationObserver(() => window.statusSeen.push(status.textContent))
      .observe(status, { childList: true, characterData: true, subtree: true });
  })()`);
  return async () => (await page.evaluate("window.statusSeen")) as string[];
}

/** The import list as the API has it (the same session as the page). */
async function imports(): Promise<RecordImportList["imports"]> {
  const response = await context.request.get(`${site.url}/api/health/records/imports`);
  return ((await response.json()) as RecordImportList).imports;
}

describe("imported health records on the profile page", () => {
  test("signs in and gives consent; before that the list says consent comes first", async () => {
    await page.goto("/?next=/health");
    await ready(page);
    await page.getByLabel("Email").first().fill(email);
    await page.getByLabel("Password", { exact: true }).first().fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/health");
    await ready(page);
    await page.locator("#imports-empty", { hasText: "Give consent above before importing one." }).waitFor();
    await page.getByLabel(/I consent/).check();
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.locator("#profile-status", { hasText: "Profile saved." }).waitFor();
    await page.locator("#imports-empty", { hasText: "No records imported yet." }).waitFor();
    for (const [id, empty] of [
      ["allergies", "No allergies in your imported records."],
      ["imported-conditions", "No active conditions in your imported records."],
      ["imported-medications", "No active medications in your imported records."],
      ["immunizations", "No immunizations in your imported records."],
    ] as const) {
      await expect(section(id).textContent()).resolves.toBe(empty);
    }
    await axeClean(page, "consent given, nothing imported");
  }, 30_000);

  test("imports a Synthea patient: progress, then what was kept per kind and skipped per resource type", async () => {
    const seen = await watchStatus();
    await chooseAndImport(files.johnnie);
    await status()
      .filter({ hasText: "Imported johnnie.json (Johnnie679 Hermiston71, born Mar 20, 2009)." })
      .waitFor({ timeout: 45_000 });
    await expect(status().getAttribute("data-tone")).resolves.toBe("success");
    const shown = await seen();
    expect(shown).toContain("johnnie.json: uploading…");
    expect(shown).toContain("johnnie.json: reading the record…");
    const [stored] = await imports();
    expect(stored?.filename).toBe("johnnie.json");
    const { kept, skipped } = johnnie.summary;
    const summary = page.locator("#record-summary");
    await expect(textOf(summary.locator("h3"))).resolves.toBe("What johnnie.json held");
    await expect(summary.locator("ul").first().locator("li").allTextContents()).resolves.toEqual([
      `${kept.conditions} conditions`,
      `${kept.medications} medications`,
      "0 allergies",
      `${kept.labResults} lab results (${stored?.labPanels} lab panel${stored?.labPanels === 1 ? "" : "s"})`,
      `${kept.immunizations} immunizations`,
    ]);
    const skippedShown = await summary.locator("ul").nth(1).locator("li").allTextContents();
    expect(skippedShown).toEqual(
      Object.entries(skipped)
        .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
        .map(([type, n]) => `${type}: ${n}`),
    );
    expect(skippedShown).toContain("Claim: 26");
    // Listed with its own Undo, named for the file.
    await importItem("johnnie.json").getByRole("button", { name: "Undo the import of johnnie.json" }).waitFor();
    await axeClean(page, "after importing");
    await screenshot(page, "records-desktop");
  }, 60_000);

  test("the profile's sections fill in from the file, and stay after a reload", async () => {
    await page.reload();
    await ready(page);
    const conditions = await rowsOf(section("imported-conditions"));
    // Only the active ones: the Synthea patient's sinusitis and bronchitis are resolved.
    expect(conditions.map(([name]) => name)).toEqual(
      johnnie.conditions.filter((condition) => condition.active).map((condition) => condition.name),
    );
    expect(conditions.find(([name]) => name === "Child attention deficit disorder")).toEqual([
      "Child attention deficit disorder",
      "SNOMED CT 192127007",
      expect.stringMatching(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/),
      "johnnie.json",
    ]);
    const medications = await rowsOf(section("imported-medications"));
    expect(medications.map(([name]) => name)).toEqual(["atomoxetine 100 MG Oral Capsule"]);
    expect(medications[0]?.[1]).toStartWith("RxNorm ");
    const immunizations = await rowsOf(section("immunizations"));
    expect(immunizations).toHaveLength(johnnie.immunizations.length);
    // Newest first; the MMR doses with their dates as the record gives them.
    expect(immunizations[0]).toEqual([
      "Influenza, seasonal, injectable, preservative free",
      "Nov 2, 2018",
      "CVX 140",
      "johnnie.json",
    ]);
    expect(immunizations.filter(([vaccine]) => vaccine === "MMR").map(([, date]) => date)).toEqual([
      "Feb 28, 2014",
      "May 28, 2010",
    ]);
    await expect(section("allergies").textContent()).resolves.toBe("No allergies in your imported records.");
    await axeClean(page, "sections filled");
    // At phone width the tables scroll inside their boxes; the page does not scroll sideways.
    const phone = await browser.newContext({
      viewport: PHONE,
      baseURL: site.url,
      isMobile: true,
      hasTouch: true,
      storageState: await context.storageState(),
    });
    try {
      const small = await phone.newPage();
      await small.goto("/health");
      await ready(small);
      await small.locator("#immunizations tbody tr").first().waitFor();
      expect(await small.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
      await axeClean(small, "records at phone width");
    } finally {
      await phone.close();
    }
  }, 40_000);

  test("the Labs page charts an imported analyte", async () => {
    expect(hemoglobin?.value).toBeNumber();
    await page.goto("/health/labs");
    await ready(page);
    const picker = page.getByLabel("Test", { exact: true });
    await picker.selectOption("718-7");
    await expect(picker.locator("option:checked").textContent()).resolves.toBe(`${hemoglobin?.name} (1 result)`);
    await page.locator("#analyte-chart svg .point").first().waitFor();
    const drawn = await drawnChart(page);
    expect(drawn.points.map((point) => Number(point.value))).toEqual([hemoglobin?.value as number]);
    // Named by the lab catalogue's analyte for that LOINC code.
    await expect(textOf(page.locator("#analyte-summary"))).resolves.toStartWith(
      `1 result of Hemoglobin; latest ${hemoglobin?.value} ${hemoglobin?.unit}`,
    );
    await expect(cells(page.locator("#analyte-table tbody tr").first())).resolves.toContain(
      `${hemoglobin?.value} ${hemoglobin?.unit}`,
    );
    await axeClean(page, "imported analyte charted");
  }, 30_000);

  test("a file that is not a record is refused with the reason, and one of another type before uploading", async () => {
    await page.goto("/health");
    await ready(page);
    await chooseAndImport(files.notes);
    await expect(status().textContent()).resolves.toBe(
      "notes.txt is not a JSON or XML file. Choose a FHIR R4 Bundle or a C-CDA document.",
    );
    // A single FHIR Condition: uploaded, then refused by the reader (422 RECORD_NOT_READABLE).
    await chooseAndImport(files.condition);
    await status().filter({ hasText: "condition.json could not be imported: " }).waitFor({ timeout: 45_000 });
    await expect(status().textContent()).resolves.toBe(
      "condition.json could not be imported: The JSON is a FHIR Condition, not a Bundle.",
    );
    await expect(status().getAttribute("data-tone")).resolves.toBe("error");
    await axeClean(page, "import refused");
    expect(await imports()).toHaveLength(1);
  }, 60_000);

  test("a record about another patient asks first: 'Do not import' keeps nothing, 'Import anyway' keeps it", async () => {
    await chooseAndImport(files.ccd);
    const proceed = page.getByRole("button", { name: "Import anyway" });
    await proceed.waitFor({ timeout: 45_000 });
    const message = await textOf(status());
    expect(message).toContain("Adam Frankie Everyman");
    expect(message).toContain("Johnnie679 Hermiston71");
    expect(message).toEndWith("Nothing was stored. Import it anyway?");
    await axeClean(page, "asking about another patient");
    await page.getByRole("button", { name: "Do not import" }).click();
    await status().filter({ hasText: "ccd.xml was not imported." }).waitFor();
    await expect(proceed.isVisible()).resolves.toBe(false);
    expect(await imports()).toHaveLength(1);

    await chooseAndImport(files.ccd);
    await proceed.waitFor({ timeout: 45_000 });
    await proceed.click();
    await status()
      .filter({ hasText: "Imported ccd.xml (Adam Frankie Everyman, born Nov 25, 1954)." })
      .waitFor({ timeout: 45_000 });
    await expect(page.locator("#imports li.record-import").count()).resolves.toBe(2);
    const allergies = await rowsOf(section("allergies"));
    expect(allergies).toEqual(
      ccd.allergies.map((allergy) => [allergy.substance, allergy.reactions.join(""), "not given", "ccd.xml"]),
    );
    expect(allergies.map(([substance]) => substance)).toContain("Codeine");
    await axeClean(page, "two imports, allergies shown");
  }, 90_000);

  test("Undo asks first, then removes everything read from that file", async () => {
    const undo = (filename: string) =>
      importItem(filename).getByRole("button", { name: `Undo the import of ${filename}` });
    // Dismissing the confirmation keeps it.
    page.once("dialog", (dialog) => void dialog.dismiss());
    await undo("ccd.xml").click();
    await expect(page.locator("#imports li.record-import").count()).resolves.toBe(2);
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await undo("ccd.xml").click();
    await page.locator("#imports-status", { hasText: "Undone: ccd.xml;" }).waitFor();
    expect(asked).toStartWith("Undo the import of ccd.xml? Everything read from it is removed: ");
    await page.locator("#allergies", { hasText: "No allergies in your imported records." }).waitFor();
    await expect(importItem("ccd.xml").count()).resolves.toBe(0);
    // The other import's sections are still there.
    expect((await rowsOf(section("imported-conditions"))).map(([name]) => name)).toContain(
      "Child attention deficit disorder",
    );

    page.once("dialog", (dialog) => void dialog.accept());
    await undo("johnnie.json").click();
    const items = johnnie.conditions.length + johnnie.medications.length + johnnie.immunizations.length;
    await page.locator("#imports-status", { hasText: `Undone: johnnie.json; ${items} items and ` }).waitFor();
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe("imports-heading");
    await page.locator("#imports-empty", { hasText: "No records imported yet." }).waitFor();
    await expect(page.locator("#record-summary").isVisible()).resolves.toBe(false);
    for (const [id, empty] of [
      ["imported-conditions", "No active conditions in your imported records."],
      ["imported-medications", "No active medications in your imported records."],
      ["immunizations", "No immunizations in your imported records."],
    ] as const) {
      await expect(section(id).textContent()).resolves.toBe(empty);
    }
    expect(await imports()).toEqual([]);
    await axeClean(page, "after undoing");
  }, 30_000);

  test("the Labs page has no imported results left to chart", async () => {
    await page.goto("/health/labs");
    await ready(page);
    await page.locator("#panels-empty").waitFor();
    await expect(page.locator("#analyte-section").isVisible()).resolves.toBe(false);
    await expect(page.locator("#analyte-select option[value='718-7']").count()).resolves.toBe(0);
  }, 30_000);
});
