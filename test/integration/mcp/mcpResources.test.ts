import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createApp } from "../../../api/app";
import { contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { createLog, listLogs } from "../../../shared/health/logs";
import { createPanel, listPanels } from "../../../shared/labs/panels";
import { upsertPapers } from "../../../shared/papers/repository";
import { type Paper, parseSourceLine } from "../../../shared/records/paper";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, createTestAccount, json, type TestAccount, type TestApp } from "../../helpers/http";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { bearer, connectMcp, ERAS, type Era, type SeededChat, seedChat } from "../../helpers/mcpData";

/**
 * Resources through the official SDK client against the app on a port: the templates, each
 * template read with the caller's own data, other accounts' records (not found, nothing leaks),
 * consent and plan, and resources/list paging.
 */
let deps: Deps;
let app: TestApp;
let server: ReturnType<TestApp["listen"]>;
let url: URL;
let papers: { recent: Paper; oldStyle: Paper; noAbstract: Paper };
const clients: Client[] = [];

interface Holder {
  account: TestAccount;
  client: Client;
  logId: string;
  entryIds: string[];
  panelId: string;
  chat: SeededChat;
}
let owner: Holder;
let other: Holder;

let era: Era = "2025-11-25";
async function connect(key: string): Promise<Client> {
  const client = await connectMcp(url, bearer(key), "resources-test", era);
  clients.push(client);
  return client;
}

/** Papers of the demo slice that the ingest tests' 1k fixture does not hold (they count that table). */
async function pickPapers(): Promise<typeof papers> {
  const fixture = Bun.gunzipSync(await Bun.file(`${import.meta.dir}/../../fixtures/arxiv/papers-1k.jsonl.gz`).bytes());
  const theirs = new Set(
    new TextDecoder()
      .decode(fixture)
      .split("\n")
      .filter(Boolean)
      .map((line) => parseSourceLine(line).id),
  );
  const demo = await demoPapers();
  const ours = demo.filter((paper) => !theirs.has(paper.id));
  const find = (test: (paper: Paper) => boolean) => ours.find(test) as Paper;
  return {
    recent: find((p) => /^\d{4}\./.test(p.id) && p.abstract !== null && p.versions.length > 0),
    oldStyle: find((p) => p.id.includes("/") && p.abstract !== null),
    noAbstract: find((p) => p.abstract === null),
  };
}

async function holder(title: string): Promise<Holder> {
  const account = await healthAccount(deps, app);
  const log = await createTracker(app, account.apiKey, title);
  const entryIds: string[] = [];
  for (const body of [
    { severity: 4, symptoms: ["cough"] },
    { severity: 7, symptoms: ["fever", "cough"], temperature: 38.6, temperatureUnit: "C" },
  ]) {
    const response = await addEntry(app, account.apiKey, log.id, body);
    entryIds.push((await json<{ id: string }>(response)).id);
  }
  const panel = await call(app, "/api/v1/health/labs", {
    method: "POST",
    key: account.apiKey,
    body: {
      collectedAt: "2026-02-01T08:00:00Z",
      lab: `${title} lab`,
      results: [{ name: "HbA1c", value: 6.4, unit: "%", referenceRange: { text: "4.0-5.6" } }],
    },
  });
  const chat = await seedChat(deps, account.accountId, `${title} chat`);
  return {
    account,
    client: await connect(account.apiKey),
    logId: log.id,
    entryIds,
    panelId: (await json<{ id: string }>(panel)).id,
    chat,
  };
}

beforeAll(async () => {
  deps = await testDeps();
  papers = await pickPapers();
  await upsertPapers(deps.sql, Object.values(papers));
  app = createApp(deps);
  server = app.listen({ hostname: "127.0.0.1", port: 0 });
  url = new URL(`http://127.0.0.1:${server.server?.port}/api/mcp`);
  owner = await holder("Owner cough");
  other = await holder("Secret neighbour rash");
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
});

const text = (contents: { text?: unknown }) => contents.text as string;
const parsed = (contents: { text?: unknown }) => JSON.parse(text(contents));

describe.each(ERAS)("protocol %s", (version) => {
  beforeAll(async () => {
    era = version;
    owner.client = await connect(owner.account.apiKey);
    other.client = await connect(other.account.apiKey);
  });

  describe("resources/templates/list", () => {
    test("five templates, each with a URI template, name, title, JSON type and description", async () => {
      const { resourceTemplates } = await owner.client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "paper://{arxivId}",
        "health-log://{id}",
        "lab-panel://{id}",
        "chat://{id}",
        "health-record://imports/{importId}",
      ]);
      for (const template of resourceTemplates) {
        // Named for the scheme; health-record:// has other resources too, so its template names what it reads.
        const scheme = template.uriTemplate.split(":")[0] as string;
        expect(template.name).toBe(scheme === "health-record" ? "health-record-import" : scheme);
        expect(template.title?.length).toBeGreaterThan(3);
        expect(template.description?.length).toBeGreaterThan(40);
        expect(template.mimeType).toBe("application/json");
      }
    });
  });

  describe("paper://", () => {
    test("the record as JSON (as REST returns it), then the abstract as text", async () => {
      const { recent } = papers;
      const { contents } = await owner.client.readResource({ uri: `paper://${recent.id}` });
      expect(contents.map((c) => [c.uri, c.mimeType])).toEqual([
        [`paper://${recent.id}`, "application/json"],
        [`paper://${recent.id}`, "text/plain"],
      ]);
      const rest = await call(app, `/api/v1/papers/${recent.id}`, { key: owner.account.apiKey });
      expect(parsed(contents[0] as object)).toEqual(await json(rest));
      expect(text(contents[1] as object)).toBe(recent.abstract as string);
      const versioned = await owner.client.readResource({ uri: `paper://${recent.extractedID}` });
      expect(parsed(versioned.contents[0] as object).id).toBe(recent.id);
    });

    test("an old-style id, as is or with its slash percent-encoded; a paper without abstract says so", async () => {
      const { oldStyle, noAbstract } = papers;
      for (const uri of [`paper://${oldStyle.id}`, `paper://${encodeURIComponent(oldStyle.id)}`]) {
        const { contents } = await owner.client.readResource({ uri });
        expect(parsed(contents[0] as object).id).toBe(oldStyle.id);
        expect(text(contents[1] as object)).toBe(oldStyle.abstract as string);
      }
      const { contents } = await owner.client.readResource({ uri: `paper://${noAbstract.id}` });
      expect(parsed(contents[0] as object).abstract).toBeNull();
      expect(text(contents[1] as object)).toBe("[No abstract is held for this paper.]");
    });

    test("unknown id, another scheme or a malformed id → -32602 (the first two with the URI)", async () => {
      await expect(owner.client.readResource({ uri: "paper://9912.99999" })).rejects.toMatchObject({
        code: -32602,
        data: { uri: "paper://9912.99999" },
      });
      await expect(owner.client.readResource({ uri: "paper://not an id" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("arXiv id"),
      });
      await expect(owner.client.readResource({ uri: "paper://%E0%A4%A" })).rejects.toMatchObject({ code: -32602 });
      await expect(owner.client.readResource({ uri: "paper://" })).rejects.toMatchObject({ code: -32602 });
      await expect(owner.client.readResource({ uri: "file:///etc/passwd" })).rejects.toMatchObject({ code: -32602 });
      await expect(owner.client.readResource({ uri: `paper://${"1".repeat(400)}` })).rejects.toMatchObject({
        code: -32602,
      });
    });
  });

  describe("health-log://, lab-panel://, chat:// — the caller's own", () => {
    test("a log with its entries, newest first, and the summary the summarize tool gives", async () => {
      const uri = `health-log://${owner.logId}`;
      const { contents } = await owner.client.readResource({ uri });
      expect(contents).toHaveLength(1);
      expect(contents[0]?.mimeType).toBe("application/json");
      const log = parsed(contents[0] as object);
      expect(log.title).toBe("Owner cough");
      expect(log.entries.map((e: { id: string }) => e.id)).toEqual([...owner.entryIds].reverse());
      const summary = await owner.client.callTool({
        name: "summarize_health_log",
        arguments: { trackerId: owner.logId },
      });
      expect(log.summary).toEqual(summary.structuredContent);
      expect(log.summary.entryCount).toBe(2);
    });

    test("a lab panel with its results, as REST returns it", async () => {
      const { contents } = await owner.client.readResource({ uri: `lab-panel://${owner.panelId}` });
      const rest = await call(app, `/api/v1/health/labs/${owner.panelId}`, { key: owner.account.apiKey });
      expect(parsed(contents[0] as object)).toEqual(await json(rest));
      expect(parsed(contents[0] as object).results[0]).toMatchObject({ name: "HbA1c", flag: "high" });
    });

    test("a chat transcript without the replies a share link withholds", async () => {
      const full = await owner.client.callTool({ name: "get_chat", arguments: { chat_id: owner.chat.chatId } });
      expect(JSON.stringify(full.structuredContent)).toContain(owner.chat.personalReply);
      const { contents } = await owner.client.readResource({ uri: `chat://${owner.chat.chatId}` });
      const chat = parsed(contents[0] as object);
      const texts = chat.messages.map((m: { parts: { text: string }[] }) => m.parts[0]?.text);
      expect(texts).toHaveLength(4);
      expect(texts[0]).toBe(owner.chat.question);
      expect(texts[1]).toMatch(/^\[Withheld/);
      expect(texts[3]).toBe(owner.chat.plainReply);
      expect(text(contents[0] as object)).not.toContain(owner.chat.personalReply);
      expect(chat.messages.every((m: { metadata?: unknown }) => m.metadata === undefined)).toBe(true);
    });
  });

  describe("another account's records", () => {
    test.each([
      ["health-log", () => other.logId],
      ["lab-panel", () => other.panelId],
      ["chat", () => other.chat.chatId],
    ] as const)("%s:// of another account → -32602, and the answer names nothing of theirs", async (scheme, id) => {
      const uri = `${scheme}://${id()}`;
      const error = await owner.client.readResource({ uri }).catch((e) => e);
      expect(error).toMatchObject({ code: -32602, data: { uri } });
      expect(String(error.message)).not.toContain("Secret");
      // The same answer as an id nobody has.
      const unknown = `${scheme}://019aa000-0000-7000-8000-000000000000`;
      await expect(owner.client.readResource({ uri: unknown })).rejects.toMatchObject({ code: -32602 });
      await expect(owner.client.readResource({ uri: `${scheme}://12345` })).rejects.toMatchObject({ code: -32602 });
    });

    test("resources/list shows only the caller's records", async () => {
      const { resources } = await owner.client.listResources();
      const uris = resources.map((r) => r.uri);
      // The health record's two fixed resources (no imports here: mcpHealthRecords.test.ts has them).
      expect(uris).toEqual([
        "health-record://summary",
        "health-record://fhir",
        `health-log://${owner.logId}`,
        `lab-panel://${owner.panelId}`,
        `chat://${owner.chat.chatId}`,
      ]);
      expect(JSON.stringify(resources)).not.toContain("Secret");
      expect(resources[2]).toMatchObject({ name: "Owner cough", mimeType: "application/json" });
      for (const resource of resources) {
        expect(resource.title?.length).toBeGreaterThan(3);
        expect(resource.description?.length).toBeGreaterThan(10);
      }
    });
  });

  describe("consent and plan", () => {
    test("without consent: health resources refused naming consent, and not listed; chats still are", async () => {
      const bare = await healthAccount(deps, app, { consent: false });
      const chat = await seedChat(deps, bare.accountId, "Bare chat");
      const client = await connect(bare.apiKey);
      for (const uri of [`health-log://${owner.logId}`, `lab-panel://${owner.panelId}`]) {
        const error = await client.readResource({ uri }).catch((e) => e);
        expect(error).toMatchObject({ code: -32602, data: { kind: "CONSENT_REQUIRED" } });
        expect(String(error.message)).toMatch(/consent/i);
      }
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([`chat://${chat.chatId}`]);
    });

    test("on the Free plan: health and chat resources refused naming the plan, papers read, nothing listed", async () => {
      const free = await createTestAccount(deps, "free");
      await seedChat(deps, free.accountId, "Free chat");
      const client = await connect(free.apiKey);
      for (const uri of [
        `health-log://${owner.logId}`,
        `lab-panel://${owner.panelId}`,
        `chat://${owner.chat.chatId}`,
      ]) {
        const error = await client.readResource({ uri }).catch((e) => e);
        expect(error).toMatchObject({ code: -32602, data: { kind: "PLAN_REQUIRED" } });
        expect(String(error.message)).toContain("free plan");
      }
      expect((await client.readResource({ uri: `paper://${papers.recent.id}` })).contents).toHaveLength(2);
      expect((await client.listResources()).resources).toEqual([]);
    });
  });

  describe("resources/list paging", () => {
    test("pages of 50 with an opaque cursor visit every record once: the record, logs, panels, chats", async () => {
      const pager = await healthAccount(deps, app, { plan: "pro" });
      const ctx = contextFor(deps, "seed", { accountId: pager.accountId, plan: "pro" });
      for (let i = 0; i < 45; i++) await createLog(ctx, { title: `Log ${i}`, kind: "custom" });
      for (let i = 0; i < 10; i++) {
        await createPanel(ctx, {
          collectedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
          results: [{ name: "Glucose", value: 5 + i / 10, unit: "mmol/L" }],
        });
      }
      const chats = [];
      for (let i = 0; i < 3; i++) chats.push(await seedChat(deps, pager.accountId, `Chat ${i}`));
      const logs = (await listLogs(ctx, { limit: 100 })).trackers.map((log) => `health-log://${log.id}`);
      const panels = (await listPanels(ctx, { limit: 100 })).panels.map((panel) => `lab-panel://${panel.id}`);
      const record = ["health-record://summary", "health-record://fhir"];
      const expected = [...record, ...logs, ...panels, ...chats.reverse().map((chat) => `chat://${chat.chatId}`)];

      const client = await connect(pager.apiKey);
      expect(expected).toHaveLength(60);
      if (era === "2026-07-28") {
        // The v2 client follows the cursors itself and hands back every page at once.
        expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(expected);
        return;
      }
      const first = await client.listResources();
      expect(first.resources).toHaveLength(50);
      expect(first.nextCursor).toBeString();
      const second = await client.listResources({ cursor: first.nextCursor as string });
      expect(second.nextCursor).toBeUndefined();
      expect([...first.resources, ...second.resources].map((r) => r.uri)).toEqual(expected);

      await expect(client.listResources({ cursor: "not-ours" })).rejects.toMatchObject({ code: -32602 });
      const forged = Buffer.from(JSON.stringify({ section: 7 })).toString("base64url");
      await expect(client.listResources({ cursor: forged })).rejects.toMatchObject({ code: -32602 });
    });
  });
});
