import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createApp } from "../../../api/app";
import { createKey } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import { upsertPapers } from "../../../shared/papers/repository";
import type { Paper } from "../../../shared/records/paper";
import { TOOLS } from "../../../shared/toolCatalog";
import { startWorkers, type Workers } from "../../../workers/runner";
import { type Site, startSite } from "../../helpers/browser";
import {
  type ClientMetadataServer,
  oauthFetchEnv,
  startClientMetadataServer,
} from "../../helpers/clientMetadataServer";
import { healthAccount } from "../../helpers/health";
import { call, createTestAccount, json, type TestAccount } from "../../helpers/http";
import { demoPapers, ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { bearer, connectMcp, type Era } from "../../helpers/mcpData";
import { connectThroughOAuth } from "../../helpers/mcpOauth";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";
import { webUser } from "../../helpers/website";

/**
 * Every tool of the catalog through the official SDK clients against the real app on a port, three
 * times: the v1 client over 2025-11-25 and the v2 client negotiating 2026-07-28, each with an API
 * key, and the v2 client authorized through OAuth with a client ID metadata document. Each tool
 * once with a valid input (the structured result is asserted; the client also checks it against
 * the tool's output schema) and once with an input the model must correct (an isError result).
 */
const VARIANTS: { era: Era; via: "key" | "OAuth" }[] = [
  { era: "2025-11-25", via: "key" },
  { era: "2026-07-28", via: "key" },
  { era: "2026-07-28", via: "OAuth" },
];

let deps: Deps;
let site: Site;
let docs: ClientMetadataServer;
let documentUrl: string;
let url: URL;
let workers: Workers;
let upstream: UpstreamFixtures;
let papers: Paper[];
let app: ReturnType<typeof createApp>;
let account: TestAccount;
let client: Client;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = await ownIndexes(withUpstream(await testDeps(), upstream), "mcptools");
  papers = await demoPapers();
  // get_papers reads PostgreSQL, like GET /api/v1/papers/{id}; the same rows papersSearch writes.
  await upsertPapers(deps.sql, papers.slice(0, 50));
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda"] });
  // The OAuth variant's client is known by its metadata document, served over https here.
  docs = await startClientMetadataServer();
  documentUrl = docs.serveClient("/agents/tools.json");
  site = await startSite({ ...deps, env: { ...deps.env, ...oauthFetchEnv(docs) } });
  deps = site.deps;
  app = createApp(deps);
  url = new URL(`${site.url}/api/mcp`);
}, 120_000);

afterAll(async () => {
  await site?.stop();
  await docs?.stop();
  await workers?.close();
  await upstream?.stop();
});

let era: Era;
const connect = (key: string) => connectMcp(url, bearer(key), "tools-test", era);

// The SDK client already checks each result against the tool's output schema; tests read fields freely.
// biome-ignore lint/suspicious/noExplicitAny: structured results are asserted field by field
type Structured = Record<string, any>;

async function ok(name: string, args: Record<string, unknown>, on = client): Promise<Structured> {
  const result = await on.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  expect((result.content as { type: string; text: string }[])[0]?.type).toBe("text");
  return result.structuredContent as Structured;
}

async function fails(name: string, args: Record<string, unknown>, on = client): Promise<string> {
  const result = await on.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return (result.content as { text: string }[])[0]?.text ?? "";
}

let called = new Set<string>();
let failed = new Set<string>();
async function valid(name: string, args: Record<string, unknown>) {
  called.add(name);
  return ok(name, args);
}
async function invalid(name: string, args: Record<string, unknown>) {
  failed.add(name);
  return fails(name, args);
}

/**
 * The OAuth variant's account: a website user (the consent page needs its session), with a key for
 * the REST calls the tests make beside MCP, and consent given as healthAccount gives it.
 */
async function oauthAccount(): Promise<{ account: TestAccount; client: Client }> {
  const user = await webUser(app, deps, { plan: "plus" });
  const admin = { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX };
  const key = await createKey(admin, user.accountId);
  const account: TestAccount = { accountId: user.accountId, ...key, plan: "plus" };
  const profile = { consentGiven: true, conditions: [], medications: [] };
  expect((await call(app, "/api/v1/health/profile", { method: "POST", key: key.apiKey, body: profile })).status).toBe(
    200,
  );
  const { client: modern } = await connectThroughOAuth(site.url, user, documentUrl);
  return { account, client: modern as unknown as Client };
}

describe.each(VARIANTS)("protocol $era with $via", (variant) => {
  beforeAll(async () => {
    era = variant.era;
    called = new Set();
    failed = new Set();
    if (variant.via === "OAuth") {
      ({ account, client } = await oauthAccount());
    } else {
      account = await healthAccount(deps, app, { plan: "plus" });
      client = await connect(account.apiKey);
    }
    // The client checks structured results against the output schemas it has listed.
    await client.listTools();
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  describe("paper tools", () => {
    test("title search, keyword search, fielded search, one and several papers", async () => {
      const title = await valid("search_papers_by_title", { q: "quantum", limit: 3 });
      expect(title.data.length).toBeGreaterThan(0);
      expect(title.data.every((p: Paper) => /quantum/i.test(p.title))).toBe(true);
      expect(title.pagination).toMatchObject({ page: 0, limit: 3 });
      expect(await invalid("search_papers_by_title", { q: "" })).toContain("/q");

      const keyword = await valid("search_papers", { query: "neutrino oscillations", limit: 2 });
      expect(keyword.data.length).toBeGreaterThan(0);
      expect(await invalid("search_papers", { query: "x", limit: 500 })).toContain("/limit");

      const fielded = await valid("search_papers_advanced", {
        filters: { ti: "quantum" },
        sortBy: "submittedDate",
        sortOrder: "descending",
        limit: 5,
      });
      expect(fielded.query).toMatchObject({ filters: { ti: "quantum" }, sortBy: "submittedDate" });
      const dates = fielded.data.map((p: Paper) => p.submittedDate);
      expect(dates).toEqual([...dates].sort().reverse());
      expect(await invalid("search_papers_advanced", { filters: { ti: "  " } })).toContain(
        "at least one non-empty filter",
      );
      expect(await fails("search_papers_advanced", { filters: { ti: "x" }, submittedFrom: "2024-02-30" })).toContain(
        "real calendar day",
      );

      // One paper is get_papers with one id (the versioned id finds the same record).
      const one = papers[0] as Paper;
      expect(await valid("get_papers", { ids: [one.extractedID] })).toEqual({
        data: [one as unknown as Structured],
        missing: [],
      });
      expect(await ok("get_papers", { ids: ["9999.99999"] })).toEqual({ data: [], missing: ["9999.99999"] });

      const several = await ok("get_papers", { ids: [one.id, "9999.99999", (papers[1] as Paper).id] });
      expect(several.data.map((p: Paper) => p.id)).toEqual([one.id, (papers[1] as Paper).id]);
      expect(several.missing).toEqual(["9999.99999"]);
      expect(await invalid("get_papers", { ids: [] })).toContain("/ids");
      expect(await fails("get_papers", { ids: [one.id, one.id] })).toContain("/ids");
    });

    test("recent papers, categories, facets", async () => {
      const category = (papers[0] as Paper).primaryCategory;
      const recent = await valid("recent_papers", { category, limit: 5 });
      expect(recent.data.length).toBeGreaterThan(0);
      expect(recent.data.every((p: Paper) => p.categories.includes(category))).toBe(true);
      const dates = recent.data.map((p: Paper) => p.submittedDate);
      expect(dates).toEqual([...dates].sort().reverse());
      expect(await invalid("recent_papers", { category: "cs LG" })).toContain("/category");

      const archive = category.split(".")[0] as string;
      const archives = await valid("list_paper_categories", {});
      expect(archives.totalPapers).toBe(papers.length);
      const inArchive = papers.filter((p) => p.categories.some((c) => c.split(".")[0] === archive)).length;
      expect(archives.categories.find((c: { category: string }) => c.category === archive)?.count).toBe(inArchive);
      const categories = await ok("list_paper_categories", { archive });
      expect(categories.totalPapers).toBe(inArchive);
      expect(categories.categories.find((c: { category: string }) => c.category === category)?.count).toBe(
        papers.filter((p) => p.categories.includes(category)).length,
      );
      expect(await invalid("list_paper_categories", { archive: "cs.LG" })).toContain("/archive");

      const facets = await valid("paper_facets", { q: "quantum" });
      expect(facets.totalHits).toBeGreaterThan(0);
      expect(Object.values(facets.categories as Record<string, number>).every((n) => n > 0)).toBe(true);
      expect(facets.submitted.from <= facets.submitted.to).toBe(true);
      expect(Object.keys(facets.archives).length).toBeGreaterThan(0);
      expect(await invalid("paper_facets", { q: " " })).toContain("/q");
    });
  });

  describe("condition and medication tools", () => {
    test("lookup, candidates, by id, related papers", async () => {
      const reference = await valid("get_condition_reference", { q: "asthma", papers: 2 });
      expect(reference.info.label.toLowerCase()).toContain("asthma");
      expect(await invalid("get_condition_reference", { q: "zzqx nothing like it" })).toContain("No condition matches");
      expect(await fails("get_condition_reference", { q: "asthma", papers: 21 })).toContain("/papers");

      const search = await valid("search_conditions", { q: "asthma", limit: 3 });
      expect(search.data[0]).toMatchObject({ id: reference.info.id, acceptable: true });
      expect(await invalid("search_conditions", { q: "a" })).toContain("/q");

      const term = await valid("get_condition", { mondoId: reference.info.id.replace(":", "_") });
      expect(term).toMatchObject({ id: reference.info.id, label: reference.info.label });
      expect(Array.isArray(term.children)).toBe(true);
      expect(await invalid("get_condition", { mondoId: "MONDO:9999999" })).toContain("No condition with id");

      // Related papers are get_condition_reference's `papers`: the phrases searched, best matches first.
      const related = await ok("get_condition_reference", { q: "asthma", papers: 3 });
      expect(related.info.id).toBe(reference.info.id);
      expect(related.papers.query.names.length).toBeGreaterThan(0);
      expect(related.papers.data.length).toBeLessThanOrEqual(3);
      expect((await ok("get_condition_reference", { q: "asthma", papers: 0 })).papers.data).toEqual([]);
    });

    test("medication reference, label sections, NDCs (recorded upstream responses)", async () => {
      const reference = await valid("get_medication_reference", { name: "aspirin" });
      expect(reference.rxnorm).toMatchObject({ found: true, rxcui: "1191", name: "aspirin" });
      expect(await invalid("get_medication_reference", { name: " " })).toContain("/name");

      const sections = await valid("get_medication_label_sections", {
        name: "aspirin",
        sections: ["indications_and_usage", "boxed_warning"],
      });
      expect(sections.found).toBe(reference.fda.found);
      for (const key of Object.keys(sections.sections))
        expect(sections.sections[key]).toBe(reference.fda.sections[key]);
      expect([...Object.keys(sections.sections), ...sections.missingSections].sort()).toEqual([
        "boxed_warning",
        "indications_and_usage",
      ]);
      expect(await invalid("get_medication_label_sections", { name: "aspirin", sections: ["gossip"] })).toContain(
        "/sections",
      );

      const ndcs = await valid("get_medication_ndcs", { name: "aspirin" });
      expect(ndcs).toMatchObject({ found: true, rxcui: "1191", ndcs: reference.rxnorm.ndcs });
      expect(await invalid("get_medication_ndcs", {})).toContain("/name");
    });
  });

  describe("health profile, logs and symptom options", () => {
    test("profile: read, save (consent), delete only with confirm", async () => {
      const owner = await healthAccount(deps, createApp(deps), { consent: false });
      const mine = await connect(owner.apiKey);
      await mine.listTools();
      expect(await ok("get_health_profile", {}, mine)).toMatchObject({ consentGiven: false, conditions: [] });
      called.add("get_health_profile");
      expect(await invalid("get_health_profile", { id: "x" })).toContain("Invalid arguments");
      // Consent works as on REST: without it no log can be created.
      expect(await fails("create_health_log", { title: "Flu", kind: "acute" }, mine)).toMatch(/consent/i);

      const saved = await ok("save_health_profile", { consentGiven: true, conditions: ["Asthma"] }, mine);
      called.add("save_health_profile");
      expect(saved).toMatchObject({ consentGiven: true, conditions: ["Asthma"], medications: [] });
      expect(await invalid("save_health_profile", { consentGiven: false })).toContain("/consentGiven");

      expect(await invalid("delete_health_profile", {})).toContain("/confirm");
      expect(await ok("delete_health_profile", { confirm: "delete" }, mine)).toMatchObject({ deleted: true });
      called.add("delete_health_profile");
      expect((await ok("get_health_profile", {}, mine)).consentGiven).toBe(false);
      await mine.close();
    });

    test("logs: create, list, get, update, add an entry, summarize, export, delete", async () => {
      const log = await valid("create_health_log", { title: "Flu, November", kind: "acute" });
      expect(log).toMatchObject({ title: "Flu, November", kind: "acute", status: "active", entryCount: 0 });
      expect(await invalid("create_health_log", { title: "x".repeat(81), kind: "acute" })).toContain("/title");

      const entry = await valid("add_health_log_entry", {
        trackerId: log.id,
        entry: { severity: 6, symptoms: ["fever", "cough"], temperature: 38.5, temperatureUnit: "C" },
      });
      expect(entry).toMatchObject({ severity: 6, symptoms: ["fever", "cough"], temperature: 38.5 });
      expect(await invalid("add_health_log_entry", { trackerId: log.id, entry: {} })).toMatch(/observation|entry/i);

      const list = await valid("list_health_logs", { limit: 5 });
      expect(list.trackers.map((t: { id: string }) => t.id)).toContain(log.id);
      expect(await invalid("list_health_logs", { limit: 0 })).toContain("/limit");

      const read = await valid("get_health_log", { trackerId: log.id });
      expect(read.entries.map((e: { id: string }) => e.id)).toEqual([entry.id]);
      expect(await invalid("get_health_log", { trackerId: "019aa000-0000-7000-8000-000000000000" })).toMatch(
        /not|no /i,
      );

      const updated = await valid("update_health_log", { trackerId: log.id, changes: { status: "resolved" } });
      expect(updated.status).toBe("resolved");
      expect(await invalid("update_health_log", { trackerId: log.id, changes: { status: "gone" } })).toContain(
        "/changes/status",
      );

      const summary = await valid("summarize_health_log", { trackerId: log.id, unit: "F" });
      expect(summary.entryCount).toBe(1);
      expect(await invalid("summarize_health_log", { trackerId: log.id, unit: "K" })).toContain("/unit");

      const csv = await valid("export_health_log", { trackerId: log.id, format: "csv" });
      expect(csv.contentType).toContain("text/csv");
      expect(csv.content).toContain(entry.id);
      const exported = await ok("export_health_log", { trackerId: log.id });
      expect(JSON.parse(exported.content).entries).toHaveLength(1);
      expect(await invalid("export_health_log", { trackerId: log.id, format: "pdf" })).toContain("/format");

      expect(await valid("delete_health_log", { trackerId: log.id })).toEqual({ deleted: true });
      expect(await invalid("delete_health_log", { trackerId: log.id })).toMatch(/not|no /i);
    });

    test("symptom options", async () => {
      const options = await valid("list_symptom_options", { kind: "pregnancy" });
      expect(options.kind).toBe("pregnancy");
      expect(options.symptoms.length).toBeGreaterThan(0);
      expect(await invalid("list_symptom_options", { kind: "weekly" })).toContain("/kind");
    });

    test("the plan gate: a free plan gets an isError result naming the plan, not a transport error", async () => {
      const free = await createTestAccount(deps, "free");
      const theirs = await connect(free.apiKey);
      expect(await fails("get_health_profile", {}, theirs)).toMatch(/plan/i);
      expect(await fails("health_chat", { message: "hello" }, theirs)).toMatch(/plan/i);
      expect((await ok("search_papers_by_title", { q: "quantum" }, theirs)).pagination.limit).toBe(20);
      await theirs.close();
    });
  });

  describe("lab tools", () => {
    /** A panel of the caller's, entered over REST as a person would. */
    async function enter(key: string, collectedAt: string, results: Record<string, unknown>[], lab?: string) {
      const response = await fetch(new URL("/api/v1/health/labs", url), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ collectedAt, results, ...(lab ? { lab } : {}) }),
      });
      expect(response.status).toBe(201);
      return json<{ id: string }>(response);
    }

    test("list_lab_panels: newest first, flagged values listed, flaggedOnly, paging", async () => {
      const older = await enter(account.apiKey, "2025-10-01T08:00:00Z", [
        { name: "HbA1c", value: 7.1, unit: "%", referenceRange: { text: "4.0-5.6" } },
      ]);
      const newer = await enter(
        account.apiKey,
        "2026-02-01T08:00:00Z",
        [
          { name: "HbA1c", value: 6.3, unit: "%", referenceRange: { text: "4.0-5.6" } },
          { name: "Glucose", value: 5.2, unit: "mmol/L", referenceRange: { low: 3.9, high: 5.5 } },
          { name: "Hepatitis C antibody", valueText: "Reactive", flag: "abnormal" },
        ],
        "Meridian Diagnostics",
      );
      const page = await valid("list_lab_panels", { limit: 1 });
      expect(page.panels.map((p: { id: string }) => p.id)).toEqual([newer.id]);
      expect(page.panels[0].results).toHaveLength(3);
      expect(page.flagged.map((f: { name: string; flag: string }) => `${f.name} ${f.flag}`)).toEqual([
        "HbA1c high",
        "Hepatitis C antibody abnormal",
      ]);
      expect(page.flagged[0]).toMatchObject({ panelId: newer.id, valueText: "6.3", unit: "%", range: "4.0-5.6" });
      const next = await ok("list_lab_panels", { limit: 1, cursor: page.next_cursor });
      expect(next.panels.map((p: { id: string }) => p.id)).toEqual([older.id]);
      const flaggedOnly = await ok("list_lab_panels", { flaggedOnly: true });
      expect(flaggedOnly.panels[0].results.map((r: { name: string }) => r.name)).toEqual([
        "HbA1c",
        "Hepatitis C antibody",
      ]);
      expect(await invalid("list_lab_panels", { limit: 21 })).toContain("/limit");
      expect(await fails("list_lab_panels", { cursor: "not-ours" })).toContain("/cursor");
    });

    test("get_lab_history: by name, synonym or LOINC code, converted, with the trend", async () => {
      const history = await valid("get_lab_history", { name: "hemoglobin a1c" });
      expect(history.analyte).toEqual({ name: "HbA1c", code: "4548-4", unit: "%" });
      expect(history.points.map((p: { value: number; flag: string }) => `${p.value} ${p.flag}`)).toEqual([
        "7.1 high",
        "6.3 high",
      ]);
      expect(history.trend).toMatchObject({ direction: "falling", change: -0.8, compared: 2, unit: "%" });
      expect((await ok("get_lab_history", { name: "4548-4" })).points).toEqual(history.points);
      const glucose = await ok("get_lab_history", { name: "blood sugar", unit: "mg/dL" });
      expect(glucose.points[0]).toMatchObject({ value: 93.68, unit: "mg/dL" });
      expect(glucose.trend).toBeNull();
      expect(await invalid("get_lab_history", { name: "Glucose", unit: "furlongs" })).toContain("/unit");
      expect(await fails("get_lab_history", { name: " " })).toContain("/name");
      expect(await fails("get_lab_history", { name: "zzqx not a test" })).toContain("No lab results for zzqx");
    });

    test("consent as on REST: without it the list is empty and a history is refused", async () => {
      const owner = await healthAccount(deps, createApp(deps), { consent: false });
      const theirs = await connect(owner.apiKey);
      expect(await ok("list_lab_panels", {}, theirs)).toEqual({
        consentGiven: false,
        panels: [],
        next_cursor: null,
        flagged: [],
      });
      expect(await fails("get_lab_history", { name: "HbA1c" }, theirs)).toMatch(/consent/i);
      await theirs.close();
    });
  });

  describe("chat, models, uploads, account", () => {
    test("health_chat end to end through the queue with the offline model, then the chat tools", async () => {
      const reply = await valid("health_chat", { message: "What is asthma?" });
      expect(reply.text).toMatch(/asthma \(MONDO:\d{7}\)/i);
      expect(reply.model).toBe("offline-reference");
      expect(reply.finish_reason).toBe("stop");
      expect(await invalid("health_chat", { message: "   " })).toContain("/message");

      const next = await ok("health_chat", { message: "And papers about it?", chat_id: reply.chat_id });
      expect(next.chat_id).toBe(reply.chat_id);

      const chats = await valid("list_chats", { limit: 5 });
      expect(chats.chats.map((c: { id: string }) => c.id)).toContain(reply.chat_id);
      expect(await invalid("list_chats", { surface: "work" })).toContain("/surface");

      const conversation = await valid("get_chat", { chat_id: reply.chat_id });
      expect(conversation.messages).toHaveLength(4);
      expect(conversation.messages.at(-1).id).toBe(next.message_id);
      expect(await invalid("get_chat", { chat_id: "not-a-chat" })).toContain("No chat with id");

      const renamed = await valid("update_chat", { chat_id: reply.chat_id, title: "Asthma", pinned: true });
      expect(renamed).toMatchObject({ title: "Asthma", pinned: true, archived: false });
      expect(await invalid("update_chat", { chat_id: reply.chat_id })).toContain("at least one of");

      const shared = await valid("share_chat", { chat_id: reply.chat_id });
      expect(shared.url).toContain(shared.token);
      expect(await invalid("share_chat", { chat_id: "019aa000-0000-7000-8000-000000000000" })).toContain("No chat");

      expect(await valid("delete_chat", { chat_id: reply.chat_id })).toEqual({ deleted: true });
      expect(await invalid("delete_chat", { chat_id: reply.chat_id })).toContain("No chat");
    });

    test("models, an upload's status, the account", async () => {
      const models = await valid("list_models", {});
      expect(models.models.some((m: { id: string; default: boolean }) => m.id === "offline-reference")).toBe(true);
      expect(await invalid("list_models", { surface: "research" })).toContain("Invalid arguments");

      const presign = await fetch(new URL("/api/v1/uploads/presign", url), {
        method: "POST",
        headers: { authorization: `Bearer ${account.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ scope: "health", filename: "notes.txt", contentType: "text/plain", size: 5 }),
      });
      expect(presign.status).toBe(201);
      const { fileId } = await json<{ fileId: string }>(presign);
      expect(await valid("get_upload", { fileId })).toMatchObject({ fileId, status: "pending", filename: "notes.txt" });
      expect(await invalid("get_upload", { fileId: "019aa000-0000-7000-8000-000000000000" })).toContain("No upload");

      const me = await valid("get_account", {});
      expect(me).toMatchObject({ accountId: account.accountId, plan: "plus", limits: { health: true } });
      expect(me.usage.remaining).toBeLessThan(me.usage.limit);
      expect(await invalid("get_account", { plan: "pro" })).toContain("Invalid arguments");
    });
  });

  describe("the catalog", () => {
    test("tools/list: exactly 36 tools, snake_case names ≤ 64, object schemas, titles, annotations", async () => {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(36);
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      for (const tool of tools) {
        expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
        expect(tool.description?.length).toBeGreaterThan(20);
        expect(tool.title).toBeString();
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.outputSchema?.type).toBe("object");
        for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
          expect(tool.annotations?.[hint]).toBeBoolean();
        }
        // A read-only tool cannot be destructive (MCP's annotation semantics).
        if (tool.annotations?.readOnlyHint) expect(tool.annotations.destructiveHint).toBe(false);
      }
      // Both the published schemas are bounded: every string has a maxLength, every array a maxItems.
      const unbounded = tools.flatMap((tool) => unboundedIn(tool.inputSchema, tool.name));
      expect(unbounded).toEqual([]);
    });

    test("every tool was called once with a valid and once with an invalid input", () => {
      const names = TOOLS.map((t) => t.name).sort();
      expect([...called].sort()).toEqual(names);
      expect([...failed].sort()).toEqual(names);
    });

    test("REST and MCP give the same paper for the same id (one verb behind both)", async () => {
      const one = papers[1] as Paper;
      const rest = await call(createApp(deps), `/api/v1/papers/${one.id}`, { key: account.apiKey });
      expect((await ok("get_papers", { ids: [one.id] })).data).toEqual([await json(rest)]);
    });
  });

  function unboundedIn(schema: unknown, at: string): string[] {
    if (!schema || typeof schema !== "object") return [];
    const node = schema as Record<string, unknown>;
    const own: string[] = [];
    const enumLike = "const" in node || "enum" in node;
    if (node.type === "string" && !enumLike && node.maxLength === undefined && node.pattern === undefined) own.push(at);
    if (node.type === "array" && node.maxItems === undefined) own.push(at);
    return [
      ...own,
      ...Object.entries(node).flatMap(([key, value]) =>
        Array.isArray(value)
          ? value.flatMap((item, i) => unboundedIn(item, `${at}/${key}/${i}`))
          : unboundedIn(value, `${at}/${key}`),
      ),
    ];
  }
});
