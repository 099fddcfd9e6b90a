import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { setPlan } from "../../shared/auth/accounts";
import { startWorkers, type Workers } from "../../workers/runner";
import { accessibilityViolations, DESKTOP, launchChromium, type Site, screenshot, startSite } from "../helpers/browser";
import { testDeps } from "../helpers/infra";
import { TEST_PASSWORD, uniqueEmail } from "../helpers/website";

/**
 * Symptom choices on the logs page (the log kind's options, urgent ones marked, the urgent-care
 * notice before saving, option ids stored) and the urgent part of a chat reply, in headless
 * Chromium against the real API with a chat worker.
 */

interface Option {
  id: string;
  label: string;
  urgent?: boolean;
}

let site: Site;
let workers: Workers;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let csrf: string;
let acuteLog: string;
let pregnancyLog: string;

/** A POST as the page sends it: the session cookie of the context and the CSRF header. */
async function post<T>(path: string, data: unknown): Promise<T> {
  const response = await context.request.post(`${site.url}${path}`, { data, headers: { "x-csrf-token": csrf } });
  if (!response.ok()) throw new Error(`${path}: ${response.status()} ${await response.text()}`);
  return (await response.json()) as T;
}

async function get<T>(path: string): Promise<T> {
  return (await (await context.request.get(`${site.url}${path}`)).json()) as T;
}

const options = (kind: string) => get<{ symptoms: Option[] }>(`/api/health/symptoms?kind=${kind}`);

beforeAll(async () => {
  site = await startSite(await testDeps());
  workers = await startWorkers(site.deps, { queues: ["chat"] });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: DESKTOP, baseURL: site.url });
  page = await context.newPage();
  // Set up through the website's own API: a go account with consent and two logs.
  const signup = await context.request.post(`${site.url}/api/auth/signup`, {
    data: { email: uniqueEmail("symptoms"), password: TEST_PASSWORD },
  });
  const account = (await signup.json()) as { account: { id: string }; csrfToken: string };
  csrf = account.csrfToken;
  await setPlan(
    { sql: site.deps.sql, redis: site.deps.redis, redisPrefix: site.deps.env.REDIS_PREFIX },
    { accountId: account.account.id, plan: "go" },
  );
  await post("/api/health/profile", { consentGiven: true });
  pregnancyLog = (await post<{ id: string }>("/api/health/trackers", { title: "Pregnancy", kind: "pregnancy" })).id;
  acuteLog = (await post<{ id: string }>("/api/health/trackers", { title: "Chest cold", kind: "acute" })).id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await site?.stop();
});

function ready(on: Page): Promise<unknown> {
  return on.locator("body[data-ready='true']").waitFor();
}

const notice = () => page.locator("#urgent-notice");
const box = (label: string) => page.getByRole("checkbox", { name: label, exact: true });

describe("symptom choices on the website", () => {
  test("the entry form lists the log kind's options, urgent ones marked in text", async () => {
    await page.goto("/health/logs");
    await ready(page);
    await page.getByLabel("Log", { exact: true }).selectOption(acuteLog);
    const acute = (await options("acute")).symptoms;
    const urgent = acute.filter((option) => option.urgent);
    expect(urgent.length).toBeGreaterThan(0);
    const boxes = page.locator("#symptom-options input[type=checkbox]");
    await expect(boxes.count()).resolves.toBe(acute.length);
    // Urgent ones in their own group, their names ending in the word "urgent" (not colour alone).
    const warning = page.getByRole("group", { name: "Warning signs" });
    await expect(warning.getByRole("checkbox").count()).resolves.toBe(urgent.length);
    // One accessibility snapshot of the group (a role query per option takes a second each here).
    const snapshot = await warning.ariaSnapshot();
    for (const option of urgent) expect(snapshot).toContain(`checkbox "${option.label} urgent"`);
    await expect(
      warning.getByRole("checkbox").evaluateAll((boxes) => boxes.map((box) => box.getAttribute("value"))),
    ).resolves.toEqual(urgent.map((option) => option.id));
    const plain = acute.find((option) => !option.urgent) as Option;
    await expect(box(plain.label).getAttribute("value")).resolves.toBe(plain.id);
    await expect(page.locator(`label[for="symptom-${plain.id}"] .urgent-tag`).count()).resolves.toBe(0);
    // The filter narrows the list; nothing else is hidden from keyboard or screen reader.
    await page.getByLabel("Find a symptom").fill("cough");
    const shown = page.locator("#symptom-options li[data-symptom]:visible");
    const names = (await shown.allTextContents()).map((text) => text.toLowerCase());
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toContain("cough");
    await page.getByLabel("Find a symptom").fill("");
    await expect(shown.count()).resolves.toBe(acute.length);
    // Another log's kind brings its own options.
    await page.getByLabel("Log", { exact: true }).selectOption(pregnancyLog);
    const pregnancy = (await options("pregnancy")).symptoms;
    await page.locator(`#symptom-options input[value="${pregnancy[0]?.id}"]`).waitFor();
    await expect(boxes.count()).resolves.toBe(pregnancy.length);
    await page.getByLabel("Log", { exact: true }).selectOption(acuteLog);
    await page.locator(`#symptom-options input[value="${acute[0]?.id}"]`).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  }, 30_000);

  test("ticking an urgent option by keyboard shows the urgent-care notice before anything is saved", async () => {
    await expect(notice().textContent()).resolves.toBe("");
    await box("Chest pain urgent").focus();
    await page.keyboard.press("Space");
    await expect(box("Chest pain urgent").isChecked()).resolves.toBe(true);
    await expect(page.getByRole("alert").filter({ hasText: "medical emergency" }).textContent()).resolves.toContain(
      "Chest pain",
    );
    await expect(notice().textContent()).resolves.toContain("call your local emergency number or go to urgent care");
    // Shown before saving: the log still has no entry.
    const log = await get<{ entryCount: number }>(`/api/health/trackers/${acuteLog}`);
    expect(log.entryCount).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, "symptoms-desktop");
    // Unticking clears it; typing an urgent option's name shows it too.
    await page.keyboard.press("Space");
    await expect(notice().textContent()).resolves.toBe("");
    await page.getByLabel("Other symptoms").fill("High fever");
    await notice().filter({ hasText: "High fever" }).waitFor();
    await page.getByLabel("Other symptoms").fill("");
    await expect(notice().textContent()).resolves.toBe("");
  }, 30_000);

  test("saving stores the chosen option ids with the free text, and the table shows their labels", async () => {
    // More than 16 symptoms is refused in the page, before any request.
    const many = Array.from({ length: 17 }, (_, index) => `symptom ${index + 1}`).join(", ");
    await page.getByLabel("Other symptoms").fill(many);
    await page.getByRole("button", { name: "Add entry" }).click();
    await page.locator("#entry-status", { hasText: "at most 16" }).waitFor();
    await box("Chest pain urgent").check();
    await box("Cough").check();
    await page.getByLabel("Other symptoms").fill("sore elbow, cough");
    await page.getByLabel("Severity (0–10)").fill("7");
    await page.getByRole("button", { name: "Add entry" }).click();
    const row = page.locator("#entries-table tbody tr[data-entry-id]");
    await row.first().waitFor();
    const log = await get<{ entries: { symptoms: string[]; severity: number }[] }>(`/api/health/trackers/${acuteLog}`);
    expect(log.entries).toHaveLength(1);
    // Ids of the ticked options, then the free text; "cough" twice is kept once.
    expect(log.entries[0]?.symptoms).toEqual(["chest_pain", "cough", "sore elbow"]);
    expect(log.entries[0]?.severity).toBe(7);
    await expect(row.first().textContent()).resolves.toContain("Chest pain, Cough, sore elbow");
    // The form is ready for the next entry: nothing ticked, no notice.
    await expect(box("Chest pain urgent").isChecked()).resolves.toBe(false);
    await expect(notice().textContent()).resolves.toBe("");
  }, 30_000);

  test("the chat shows the urgent part of a reply above its text, live and when reopened", async () => {
    await page.goto("/health/chat");
    await ready(page);
    await page.getByLabel("Message", { exact: true }).fill("I have crushing chest pain and can't breathe");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    const reply = page.locator("#messages .message.assistant").last();
    await page.locator("#messages .message.assistant[aria-busy='false']").waitFor();
    const check = async (live: boolean) => {
      const alert = reply.locator(".urgent-alert");
      await expect(alert.textContent()).resolves.toContain("Urgent");
      await expect(alert.getAttribute("role")).resolves.toBe(live ? "alert" : null);
      await expect(alert.locator("li").count()).resolves.toBeGreaterThan(0);
      // Above the text: the alert comes first in the reply, and is drawn higher.
      const order = await reply.evaluate((root) => {
        const block = root.querySelector(".urgent-alert");
        const text = root.querySelector(".text");
        return block && text ? block.compareDocumentPosition(text) & 4 : -1;
      });
      expect(order).toBe(4);
      const [alertBox, textBox] = await Promise.all([
        alert.boundingBox(),
        reply.locator(".text").first().boundingBox(),
      ]);
      expect((alertBox?.y ?? 0) + (alertBox?.height ?? 0)).toBeLessThanOrEqual(textBox?.y ?? 0);
    };
    await check(true);
    await screenshot(page, "chat-urgent-desktop");
    const chatId = new URL(page.url()).hash.slice(1);
    const stored = await get<{ messages: { role: string; parts: { type: string }[] }[] }>(`/api/health/chat/${chatId}`);
    expect(stored.messages.at(-1)?.parts.some((part) => part.type === "data-urgent")).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.reload();
    await ready(page);
    await reply.locator(".urgent-alert").waitFor();
    await check(false);
  }, 30_000);
});
