import { expect } from "bun:test";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { setPlan } from "../../shared/auth/accounts";
import { accessibilityViolations, type Site } from "./browser";
import { TEST_PASSWORD, uniqueEmail } from "./website";

/** What the Labs page's browser test needs besides its steps: an account, panels, and readers of the page. */

export interface LabsAccount {
  post<T>(path: string, data: unknown): Promise<T>;
  get<T>(path: string): Promise<T>;
}

/**
 * Signs up in `context` (its cookie is the session), moves the account to the go plan and gives
 * consent; requests then go as the page sends them (cookie and CSRF header).
 */
export async function labsAccount(site: Site, context: BrowserContext): Promise<LabsAccount> {
  const signup = await context.request.post(`${site.url}/api/auth/signup`, {
    data: { email: uniqueEmail("labs"), password: TEST_PASSWORD },
  });
  const account = (await signup.json()) as { account: { id: string }; csrfToken: string };
  await setPlan(
    { sql: site.deps.sql, redis: site.deps.redis, redisPrefix: site.deps.env.REDIS_PREFIX },
    { accountId: account.account.id, plan: "go" },
  );
  const headers = { "x-csrf-token": account.csrfToken };
  const requests: LabsAccount = {
    async post<T>(path: string, data: unknown) {
      const response = await context.request.post(`${site.url}${path}`, { data, headers });
      if (!response.ok()) throw new Error(`${path}: ${response.status()} ${await response.text()}`);
      return (await response.json()) as T;
    },
    async get<T>(path: string) {
      return (await (await context.request.get(`${site.url}${path}`)).json()) as T;
    },
  };
  await requests.post("/api/health/profile", { consentGiven: true });
  return requests;
}

/** A result written `name|value as printed|unit|range as printed|flag`; the server parses the rest. */
function result(spec: string) {
  const [name, printed, unit, range, flag] = spec.split("|");
  const value = Number.isNaN(Number(printed)) ? { valueText: printed } : { value: Number(printed) };
  return { name, ...value, ...(unit ? { unit } : {}), referenceRange: { text: range }, ...(flag ? { flag } : {}) };
}

/** Three panels, listed here out of date order; flags left to the server but for the one the lab printed. */
const PANELS = {
  autumn: { collectedAt: "2025-11-18T08:30:00.000Z", lab: "Riverside Pathology", results: ["Glucose|99|mg/dL|70–99"] },
  spring: {
    collectedAt: "2025-05-02T00:00:00.000Z",
    lab: "Northside Clinical Laboratory",
    results: ["Glucose|5.1|mmol/L|3.9–5.5", "Hemoglobin|13.1|g/dL|12.0–15.5"],
  },
  winter: {
    collectedAt: "2026-01-20T00:00:00.000Z",
    results: [
      "Glucose|6.4|mmol/L|3.9–5.5",
      "Hemoglobin|11.4|g/dL|12.0–15.5",
      "Hepatitis C antibody|Reactive||Non-reactive|abnormal",
      "Urine protein|Negative||Negative",
    ],
  },
};

/** Enters the three panels through `POST /api/health/labs`; their ids. */
export async function enterPanels(account: LabsAccount): Promise<Record<keyof typeof PANELS, string>> {
  const ids = { autumn: "", spring: "", winter: "" };
  for (const [key, { results, ...panel }] of Object.entries(PANELS)) {
    const body = { ...panel, results: results.map(result) };
    ids[key as keyof typeof ids] = (await account.post<{ id: string }>("/api/health/labs", body)).id;
  }
  return ids;
}

export function ready(on: Page): Promise<unknown> {
  return on.locator("body[data-ready='true']").waitFor();
}

export async function axeClean(on: Page, state: string): Promise<void> {
  expect({ state, violations: await accessibilityViolations(on) }).toEqual({ state, violations: [] });
}

/** Text with the narrow no-break space ICU puts before "AM" made a plain one. */
export const plain = (text: string | null) => (text ?? "").replace(/\s/g, " ");
export const textOf = async (locator: Locator) => plain(await locator.textContent());
/** A table row's cells, joined with " | ". */
export const cells = async (locator: Locator) => (await locator.locator("td").allTextContents()).map(plain).join(" | ");

/** Chooses a file in the import form and presses "Import report". */
export async function importFile(page: Page, name: string, mimeType: string, bytes: Uint8Array | string) {
  const buffer = Buffer.from(bytes);
  await page.getByLabel("Lab report (PDF)").setInputFiles({ name, mimeType, buffer });
  await page.getByRole("button", { name: "Import report" }).click();
}

export interface DrawnChart {
  points: { shape: string; value: string; flag: string; top: number; middle: number }[];
  bands: { low: string; high: string; top: number; bottom: number }[];
  labels: string[];
}

/** What the lab chart drew: each point's shape, value, flag and height, each band's range and extent. */
export async function drawnChart(page: Page): Promise<DrawnChart> {
  return (await page.evaluate(`(() => {
    const svg = document.querySelector("#analyte-chart svg");
    const points = [...svg.querySelectorAll(".point")].map((p) => {
      const box = p.getBBox();
      return { shape: p.tagName, value: p.dataset.value, flag: p.dataset.flag, top: box.y, middle: box.y + box.height / 2 };
    });
    const bands = [...svg.querySelectorAll(".band rect")].map((b) => {
      const top = Number(b.getAttribute("y"));
      return { low: b.dataset.low, high: b.dataset.high, top, bottom: top + Number(b.getAttribute("height")) };
    });
    return { points, bands, labels: [...svg.querySelectorAll(".flag-label")].map((label) => label.textContent) };
  })()`)) as DrawnChart;
}
