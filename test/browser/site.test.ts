import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { indexUid } from "../../search-index/indexes";
import { setPlan } from "../../shared/auth/accounts";
import type { Deps } from "../../shared/context/deps";
import { applyIndexSettings } from "../../shared/indexing/settings";
import { toPaperDocument } from "../../shared/papers/search/document";
import { startWorkers, type Workers } from "../../workers/runner";
import { type SttReplay, startSttReplay } from "../fixtures/transcription/replayServer";
import {
  accessibilityViolations,
  DESKTOP,
  FAKE_MICROPHONE,
  launchChromium,
  PHONE,
  type Site,
  screenshot,
  startSite,
} from "../helpers/browser";
import { makePng } from "../helpers/files";
import { demoPapers } from "../helpers/indexes";
import { testDeps } from "../helpers/infra";
import { TEST_PASSWORD, uniqueEmail } from "../helpers/website";

/**
 * The website end to end in headless Chromium against the real API on a real port, with chat and
 * upload workers: sign up, a key from the dashboard used against /api/v1, consent, a log with
 * entries in the chart, a streamed chat with a tool result, an attachment, then sign out and be
 * refused. Each step continues from the previous one, as a person would.
 */

let site: Site;
let stt: SttReplay;
let workers: Workers;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
const email = uniqueEmail("browser");
let accountId: string;
let apiKey: string;
let chatUrl: string;

/**
 * A papers index of this file's own holding a few demo papers, for the new key to find one
 * (`ownIndexes` also loads MONDO, which this file does not need).
 */
async function papersIndexOfOwn(base: Deps): Promise<Deps> {
  const prefix = `${base.env.MEILI_INDEX_PREFIX}browser_`;
  await applyIndexSettings(base.meili, prefix);
  const documents = (await demoPapers()).slice(0, 20).map(toPaperDocument);
  // Waiting for this task also waits for the settings queued before it.
  await base.meili
    .index(indexUid(prefix, "papers"))
    .addDocuments(documents, { primaryKey: "pk" })
    .waitTask({ timeout: 25_000 });
  return { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: prefix } };
}

beforeAll(async () => {
  stt = startSttReplay();
  const base = await papersIndexOfOwn(await testDeps());
  // ElevenLabs is the local replay server; its key only has to be set.
  const deps: Deps = {
    ...base,
    env: {
      ...base.env,
      ELEVENLABS_API_KEY: "xi-test-key",
      ELEVENLABS_BASE_URL: stt.url,
      TRANSCRIPTION_WAIT_MS: 15_000,
    },
  };
  site = await startSite(deps);
  workers = await startWorkers(site.deps, { queues: ["chat", "uploads", "transcription"] });
  browser = await launchChromium(FAKE_MICROPHONE);
  desktop = await browser.newContext({
    viewport: DESKTOP,
    baseURL: site.url,
    permissions: ["microphone", "clipboard-read", "clipboard-write"],
  });
  page = await desktop.newPage();
  // Setup indexes papers and starts a browser: on a busy 2-core machine that can take a while.
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await site?.stop();
  await stt?.stop();
});

/** Waits until the page's script has loaded its data (`<body data-ready>`). */
function ready(on: Page): Promise<unknown> {
  return on.locator("body[data-ready='true']").waitFor();
}

/** Presses Tab until `target` has the focus (failing after 30 presses): it is reachable by keyboard. */
async function tabTo(on: Page, target: ReturnType<Page["locator"]>): Promise<void> {
  for (let presses = 0; presses < 30; presses++) {
    await on.keyboard.press("Tab");
    const focused = await target.evaluate(
      (element) =>
        element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
    );
    if (focused) return;
  }
  throw new Error("Tab never reached the control");
}

/** The session's JSON as the signed-in browser context sees it. */
async function sessionOf(context: BrowserContext) {
  const response = await context.request.get(`${site.url}/api/auth/session`);
  return { status: response.status(), body: response.ok() ? await response.json() : undefined };
}

describe("the website in a browser", () => {
  test("the pages are served by the API process: HTML, hashed immutable assets, security headers", async () => {
    const response = await fetch(`${site.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const html = await response.text();
    expect(html).toContain('<html lang="en">');
    const script = /src="(\/assets\/main-[a-z0-9]+\.js)"/.exec(html)?.[1] as string;
    expect(script).toBeDefined();
    const asset = await fetch(`${site.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toStartWith("text/javascript");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    // fetch asked for gzip and decoded it: the bytes are the bundle either way.
    expect(asset.headers.get("content-encoding")).toBe("gzip");
    const plain = await fetch(`${site.url}${script}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(await asset.text());
    const again = await fetch(`${site.url}${script}`, {
      headers: { "if-none-match": asset.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    // A signed-in page without any session cookie redirects to sign-in before any HTML is sent.
    const dashboard = await fetch(`${site.url}/dashboard`, { redirect: "manual" });
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get("location")).toBe("/?next=%2Fdashboard");
    // Pages are documented as what they are: HTML, under their own tag, open to anyone.
    type Doc = {
      paths: Record<
        string,
        { get: { tags: string[]; security: unknown[]; responses: Record<string, { content?: object }> } }
      >;
    };
    const doc = (await (await fetch(`${site.url}/openapi.json`)).json()) as Doc;
    for (const path of ["/", "/dashboard", "/health", "/health/logs", "/health/chat"]) {
      const operation = doc.paths[path]?.get;
      expect(operation?.tags).toEqual(["Website pages"]);
      expect(operation?.security).toEqual([]);
      expect(Object.keys(operation?.responses["200"]?.content ?? {})).toEqual(["text/html"]);
    }
  });

  test("sign up lands on the dashboard on the free plan", async () => {
    await page.goto("/");
    await ready(page);
    await screenshot(page, "signin-desktop");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel("Email").nth(1).fill(email);
    await page.getByLabel("Password", { exact: true }).nth(1).fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/dashboard");
    await ready(page);
    await expect(page.locator("#account-email").textContent()).resolves.toBe(email);
    await expect(page.locator("#usage-plan").textContent()).resolves.toBe("free");
    const session = await sessionOf(desktop);
    expect(session.status).toBe(200);
    accountId = session.body.account.id;
    // On free, the health pages say what is missing instead of failing silently.
    await page.goto("/health/logs");
    await ready(page);
    await page.locator(".plan-required", { hasText: "need the Go plan" }).waitFor();
    await expect(page.locator(".plan-required .plan-name").textContent()).resolves.toBe("free");
    // Sign-up gives the free plan and there is no billing yet: move the account to "go" as an
    // operator would (`bun run admin`), so the health pages are usable.
    await setPlan(
      { sql: site.deps.sql, redis: site.deps.redis, redisPrefix: site.deps.env.REDIS_PREFIX },
      { accountId, plan: "go" },
    );
  });

  test("the dashboard creates a key, shows it once, and the key works against /api/v1/papers/search", async () => {
    await page.goto("/dashboard");
    await ready(page);
    await expect(page.locator("#usage-plan").textContent()).resolves.toBe("go");
    // By keyboard: Tab reaches the button (past the skip link and the navigation), Enter presses it.
    await tabTo(page, page.getByRole("button", { name: "Create a key" }));
    await page.keyboard.press("Enter");
    const field = page.getByLabel("New API key");
    await field.waitFor();
    apiKey = await field.inputValue();
    expect(apiKey).toMatch(/^phk_/);
    await expect(page.locator("#mcp-config").inputValue()).resolves.toContain(`Bearer ${apiKey}`);
    await page.getByRole("button", { name: "Copy configuration" }).click();
    await page.locator("#copy-status", { hasText: "Copied" }).waitFor();
    const copied = JSON.parse((await page.evaluate("navigator.clipboard.readText()")) as string);
    expect(JSON.stringify(copied)).toContain(`Bearer ${apiKey}`);
    expect(JSON.stringify(copied)).toContain(`${site.url}/api/mcp`);
    await expect(page.locator("#keys-table tbody tr[data-key-id]").count()).resolves.toBeGreaterThanOrEqual(1);
    await screenshot(page, "dashboard-desktop");

    const search = await fetch(`${site.url}/api/v1/papers/search?q=geometric%20phase%20adiabatic`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(search.status).toBe(200);
    const found = (await search.json()) as { data: { title: string }[] };
    expect(found.data.map((paper) => paper.title)).toContain(
      "Geometric phase of an atom inside an adiabatic radio frequency potential",
    );
    // The browser's session cookie is no credential for /api/v1.
    const withCookie = await desktop.request.get(`${site.url}/api/v1/papers/search?q=geometric%20phase%20adiabatic`);
    expect(withCookie.status()).toBe(401);
    // Shown once: after a reload only the prefix is listed.
    await page.reload();
    await ready(page);
    expect(await page.content()).not.toContain(apiKey);
  });

  test("the dashboard revokes a key after confirming, and the key stops working", async () => {
    await page.getByRole("button", { name: "Create a key" }).click();
    await page.locator("#keys-status", { hasText: "Key created" }).waitFor();
    const doomed = await page.getByLabel("New API key").inputValue();
    const row = page.locator("#keys-table tbody tr", { hasText: doomed.slice(0, 10) });
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: /^Revoke key/ }).click();
    await page.locator("#keys-status", { hasText: "revoked" }).waitFor();
    await row.locator("td", { hasText: /^revoked/ }).waitFor();
    const refused = await fetch(`${site.url}/api/v1/papers/search?q=geometric`, {
      headers: { authorization: `Bearer ${doomed}` },
    });
    expect(refused.status).toBe(401);
    // The first key is untouched.
    const search = await fetch(`${site.url}/api/v1/papers/search?q=geometric`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(search.status).toBe(200);
  });

  test("the profile page gives consent", async () => {
    await page.goto("/health");
    await ready(page);
    await page.getByLabel(/I consent/).check();
    await page.getByLabel("Conditions").fill("Asthma");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.locator("#profile-status", { hasText: "Profile saved." }).waitFor();
    await expect(page.locator("#consent-state").textContent()).resolves.toStartWith("Consent given");
    await screenshot(page, "profile-desktop");
  });

  test("the logs page creates a log, adds entries and charts them", async () => {
    await page.goto("/health/logs");
    await ready(page);
    await page.getByLabel("Title").fill("Flu, November");
    await page.getByRole("button", { name: "Create log" }).click();
    await page.locator("#log-status", { hasText: "created" }).waitFor();
    const rows = page.locator("#entries-table tbody tr[data-entry-id]");
    const add = async (severity: string, temperature: string, symptoms: string, count: number) => {
      await page.getByLabel("Severity (0–10)").fill(severity);
      await page.getByLabel("Temperature", { exact: true }).fill(temperature);
      await page.getByLabel("Other symptoms").fill(symptoms);
      await page.getByRole("button", { name: "Add entry" }).click();
      await rows.nth(count - 1).waitFor();
    };
    await add("6", "38.9", "fever, cough", 1);
    await add("4", "37.2", "cough", 2);
    await expect(rows.count()).resolves.toBe(2);
    // Newest first: the second entry leads.
    await expect(rows.first().textContent()).resolves.toContain("37.2 °C");
    // "cough" is also an option id, so the table shows that option's label.
    await expect(rows.nth(1).textContent()).resolves.toContain("fever, Cough");
    // One circle per severity and one square per temperature, tied to the same entries.
    const circles = page.locator("#chart svg .severity circle[data-entry-id]");
    await expect(circles.count()).resolves.toBe(2);
    await expect(page.locator("#chart svg .temperature rect[data-entry-id]").count()).resolves.toBe(2);
    const firstId = await rows.nth(1).getAttribute("data-entry-id");
    await expect(
      page.locator(`#chart svg circle[data-entry-id="${firstId}"] title`).textContent(),
    ).resolves.toStartWith("Severity 6");
    // Higher severity is drawn higher (smaller y).
    const [sixY, fourY] = await Promise.all([
      page.locator(`#chart svg circle[data-entry-id="${firstId}"]`).getAttribute("cy"),
      circles.nth(1).getAttribute("cy"),
    ]);
    expect(Number(sixY)).toBeLessThan(Number(fourY));
    // The CSV export link downloads the same entries, oldest first.
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download this log as CSV" }).click();
    const csv = await Bun.file((await (await download).path()) as string).text();
    expect(csv.split("\r\n")[1]).toContain("38.9");
    await screenshot(page, "logs-desktop");
  });

  test("the chat streams the reply into the page and shows the tool's result readably", async () => {
    await page.goto("/health/chat");
    await ready(page);
    await expect(page.locator("#chat-heading").textContent()).resolves.toBe("New conversation");
    // Record each change of the reply's text as the page renders it.
    await page.evaluate(`(() => {
      window.__growth = [];
      const messages = document.getElementById("messages");
      new MutationObserver(() => {
        const replies = messages.querySelectorAll(".message.assistant");
        const reply = replies[replies.length - 1];
        if (!reply) return;
        const length = Array.from(reply.querySelectorAll(".text")).map((node) => node.textContent).join("").length;
        const last = window.__growth[window.__growth.length - 1];
        if (!last || last.length !== length) window.__growth.push({ length, busy: reply.getAttribute("aria-busy") === "true" });
      }).observe(messages, { subtree: true, childList: true, characterData: true, attributes: true });
    })()`);
    // The picker lists what the plan may run; choosing one sends it as `model`.
    await page.getByLabel("Model", { exact: true }).selectOption("offline-reference");
    await page.getByLabel("Message", { exact: true }).fill("Show my logs");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    const reply = page.locator("#messages .message.assistant").last();
    await reply.locator(".tool[data-tool='list_health_logs'][data-state='output-available']").waitFor();
    await page.locator("#messages .message.assistant[aria-busy='false']").waitFor();
    const finalText = (await reply.locator(".text").allTextContents()).join("");
    expect(finalText).toContain("offline reference assistant");
    const growth = (await page.evaluate("window.__growth")) as { length: number; busy: boolean }[];
    const partial = growth.filter((step) => step.busy && step.length > 0 && step.length < finalText.length);
    // The text was on the page, still marked as streaming, before it was complete.
    expect(partial.length).toBeGreaterThanOrEqual(1);
    expect(growth.filter((step) => step.length > 0).length).toBeGreaterThanOrEqual(2);
    console.info(`chat: the reply grew in ${growth.length} rendered steps to ${finalText.length} characters`);
    // The tool result is a readable table that names the log, not raw JSON.
    const tool = reply.locator(".tool[data-tool='list_health_logs']");
    await expect(tool.locator("table").first().textContent()).resolves.toContain("Flu, November");
    // The conversation is listed and addressable.
    await page.locator("#conversation-list a", { hasText: "Show my logs" }).waitFor();
    expect(page.url()).toMatch(/#[0-9a-f-]{36}$/);
    chatUrl = new URL(page.url()).pathname + new URL(page.url()).hash;
    await screenshot(page, "chat-desktop");
  });

  test("a literature search shows the papers found as a table and their sources as links", async () => {
    await page
      .getByLabel("Message", { exact: true })
      .fill("find papers on geometric phase adiabatic radio frequency potential");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    const reply = page.locator("#messages .message.assistant").last();
    const tool = reply.locator(".tool[data-tool='search_papers'][data-state='output-available']");
    await tool.waitFor();
    const table = tool.locator("table");
    await expect(table.locator("tbody tr").first().textContent()).resolves.toContain(
      "Geometric phase of an atom inside an adiabatic radio frequency potential",
    );
    // Readable: no id columns, and the answer's paper address is a link once the reply is complete.
    await expect(table.locator("thead").textContent()).resolves.not.toMatch(/\bid\b/);
    await reply.locator(".text a").first().waitFor();
    await expect(reply.locator(".text a").first().getAttribute("href")).resolves.toBe(
      "https://arxiv.org/abs/0704.0476",
    );
  });

  test("a text file attached to a chat message is uploaded, processed and sent with it", async () => {
    await page.getByLabel("Attach files").setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Temperature 38.4 in the evening; rested all day."),
    });
    await page.locator("#attachment-list li", { hasText: "ready" }).waitFor();
    const before = await page.locator("#messages .message.assistant").count();
    await page.getByLabel("Message", { exact: true }).fill("Show my logs, and keep my note with them");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator("#messages .message.user", { hasText: "Attached: notes.txt" }).waitFor();
    await page.locator("#messages .message.assistant[aria-busy='false']").nth(before).waitFor();
    await expect(page.locator("#chat-status").textContent()).resolves.toBe("");
    await expect(
      page.locator("#messages .message.assistant").last().locator(".error").allTextContents(),
    ).resolves.toEqual([]);
    // The server stored the message with the upload's id.
    const chatId = new URL(page.url()).hash.slice(1);
    const stored = await (await desktop.request.get(`${site.url}/api/health/chat/${chatId}`)).json();
    const sent = stored.messages.filter((message: { role: string }) => message.role === "user").at(-1);
    expect(sent.metadata.attachmentIds).toHaveLength(1);
  });

  test("a photo attached in the default setup is accepted, and the offline assistant says what it is", async () => {
    await page
      .getByLabel("Attach files")
      .setInputFiles({ name: "rash.png", mimeType: "image/png", buffer: Buffer.from(makePng(48, 32)) });
    await page.locator("#attachment-list li", { hasText: "ready" }).waitFor();
    const before = await page.locator("#messages .message.assistant").count();
    await page.getByLabel("Message", { exact: true }).fill("What is this rash on my arm?");
    await page.getByRole("button", { name: "Send" }).click();
    const reply = page.locator("#messages .message.assistant[aria-busy='false']").nth(before);
    await reply.waitFor();
    await expect(reply.locator(".error").allTextContents()).resolves.toEqual([]);
    const text = await reply.textContent();
    expect(text).toContain("cannot see images");
    expect(text).toContain("48 × 32 pixels");
  });

  test("a stream cut off mid-reply is resumed from the last event id, and the whole reply is shown", async () => {
    // The browser receives the real stream only up to its first text delta, then the connection ends.
    await page.route(
      `${site.url}/api/health/chat`,
      async (route) => {
        const response = await route.fetch();
        const events = (await response.text()).split("\n\n");
        const cut = events.findIndex((event) => event.includes('"type":"text-delta"'));
        expect(cut).toBeGreaterThan(0);
        await route.fulfill({ response, body: `${events.slice(0, cut + 1).join("\n\n")}\n\n` });
      },
      { times: 1 },
    );
    const resumed = page.waitForRequest((request) => request.url().endsWith("/stream"));
    const before = await page.locator("#messages .message.assistant").count();
    await page.getByLabel("Message", { exact: true }).fill("Show my logs once more");
    await page.getByLabel("Message", { exact: true }).press("Enter");
    const request = await resumed;
    expect(Number(request.headers()["last-event-id"])).toBeGreaterThan(0);
    // route.fetch() read the whole turn first, so it is over: 204, and the page reloads the stored reply.
    expect((await request.response())?.status()).toBe(204);
    // The turn had finished, so the page shows the stored conversation: every reply complete.
    const complete = page.locator("#messages .message.assistant[aria-busy='false']", {
      hasText: "not medical advice",
    });
    await complete.nth(before).waitFor();
    const last = page.locator("#messages .message.assistant").last();
    await expect(last.textContent()).resolves.toContain("Flu, November");
    await expect(last.locator(".error").count()).resolves.toBe(0);
    await expect(last.locator(".tool[data-state='output-available']").count()).resolves.toBe(1);
  });

  test("a voice note is recorded, transcribed and put into the message box", async () => {
    const record = page.getByRole("button", { name: "Record voice note" });
    await record.click();
    const stop = page.getByRole("button", { name: "Stop recording" });
    await expect(stop.getAttribute("aria-pressed")).resolves.toBe("true");
    await stop.click();
    await page.locator("#chat-status", { hasText: "Transcript added" }).waitFor();
    await expect(page.getByLabel("Message", { exact: true }).inputValue()).resolves.toBe(
      "I have had a headache since yesterday morning.",
    );
    // What reached "ElevenLabs": the browser's recording, typed as audio.
    const sent = stt.requests.at(-1);
    expect(sent?.file?.declaredType).toStartWith("audio/webm");
    expect(sent?.file?.bytes.length).toBeGreaterThan(0);
    await page.getByLabel("Message", { exact: true }).fill("");
  });

  test("every signed-in page passes axe-core's WCAG 2.1 A and AA checks with its data loaded", async () => {
    for (const path of ["/dashboard", "/health", "/health/logs", chatUrl]) {
      await page.goto(path);
      await ready(page);
      expect({ path, violations: await accessibilityViolations(page) }).toEqual({ path, violations: [] });
    }
  });

  test("every page works at phone width (375 px) after signing in there", async () => {
    const phone = await browser.newContext({ viewport: PHONE, baseURL: site.url, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      await small.goto("/?next=/health/logs");
      await ready(small);
      await screenshot(small, "signin-phone");
      await small.getByLabel("Email").first().fill(email);
      await small.getByLabel("Password", { exact: true }).first().fill(TEST_PASSWORD);
      await small.getByRole("button", { name: "Sign in" }).click();
      await small.waitForURL("**/health/logs");
      await ready(small);
      await small.locator("#chart svg .severity circle").first().waitFor();
      await screenshot(small, "logs-phone");
      const pages: [path: string, name: string, shown: string][] = [
        ["/dashboard", "dashboard-phone", "#keys-table tbody tr[data-key-id]"],
        ["/health", "profile-phone", "#consent-state"],
        [chatUrl, "chat-phone", "#messages .message.assistant .tool"],
      ];
      for (const [path, name, shown] of pages) {
        await small.goto(path);
        await ready(small);
        await small.locator(shown).first().waitFor();
        // Nothing wider than the screen: no sideways scrolling of the whole page.
        expect(await small.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
        await screenshot(small, name);
      }
    } finally {
      await phone.close();
    }
  });

  test("after sign-in, a `next` that leads off this site (backslash, tab, javascript:) lands on the dashboard", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: site.url });
    try {
      const signInPage = await context.newPage();
      for (const next of [
        "%2F%5Cevil.example%2Fphish",
        "/%09/evil.example",
        "%2F%2Fevil.example",
        "javascript:alert(1)",
      ]) {
        await context.clearCookies();
        await signInPage.goto(`/?next=${next}`);
        await ready(signInPage);
        await signInPage.getByLabel("Email").first().fill(email);
        await signInPage.getByLabel("Password", { exact: true }).first().fill(TEST_PASSWORD);
        await signInPage.getByRole("button", { name: "Sign in" }).click();
        await signInPage.waitForURL((url) => url.pathname === "/dashboard", { timeout: 10_000 });
        expect(new URL(signInPage.url()).origin, next).toBe(site.url);
      }
    } finally {
      await context.close();
    }
  });

  test("signing out ends the session: pages send you to sign-in and the API answers 401", async () => {
    await page.goto("/dashboard");
    await ready(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto("/dashboard");
    await page.waitForURL((url) => url.pathname === "/" && url.search === "?next=%2Fdashboard");
    expect((await desktop.request.get(`${site.url}/api/dashboard/usage`)).status()).toBe(401);
    expect((await sessionOf(desktop)).status).toBe(401);
    // The API key is not a session: it keeps working until revoked.
    const search = await fetch(`${site.url}/api/v1/papers/search?q=geometric%20phase%20adiabatic`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(search.status).toBe(200);
  });
});
