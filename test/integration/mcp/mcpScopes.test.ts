import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SCOPE_META, SCOPES_META } from "../../../api/mcp/meta";
import { SCOPE_NAMES, type Scope } from "../../../shared/auth/scopes";
import { type Ctx, contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { createLog, listLogs } from "../../../shared/health/logs";
import { saveProfile } from "../../../shared/health/profile";
import { createPanel } from "../../../shared/labs/panels";
import { upsertPapers } from "../../../shared/papers/repository";
import type { Paper } from "../../../shared/records/paper";
import { TOOLS } from "../../../shared/toolCatalog";
import { createTestAccount } from "../../helpers/http";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { mcpRpc, seedChat } from "../../helpers/mcpData";

/**
 * OAuth scopes on every MCP method, driven in-process with a caller that holds some scopes (as an
 * OAuth access token will): each tool refuses a token without its one scope before anything runs;
 * resources, prompts and completions refuse or leave out what the token may not read.
 */
let deps: Deps;
let accountId: string;
let paper: Paper;
let logId: string;
let panelId: string;
let chatId: string;

const caller = (scopes?: Scope[]): Ctx =>
  contextFor(deps, `req_scopes_${Math.random().toString(36).slice(2)}`, {
    accountId,
    plan: "pro",
    ...(scopes ? { scopes: new Set(scopes) } : {}),
  });
const allBut = (scope: Scope) => SCOPE_NAMES.filter((name) => name !== scope);

beforeAll(async () => {
  deps = await testDeps();
  // The same demo papers mcpTools writes (papers of the ingest tests' fixture are left alone).
  const papers = (await demoPapers()).slice(0, 50);
  await upsertPapers(deps.sql, papers);
  paper = papers[0] as Paper;
  ({ accountId } = await createTestAccount(deps, "pro"));
  const ctx = caller();
  await saveProfile(ctx, { consentGiven: true, conditions: ["Asthma"], medications: ["aspirin", "Zylotestamine"] });
  logId = (await createLog(ctx, { title: "Scoped cough", kind: "acute" })).id;
  panelId = (
    await createPanel(ctx, {
      collectedAt: "2026-01-05T08:00:00Z",
      results: [{ name: "Glucose", value: 7.9, unit: "mmol/L", referenceRange: { low: 3.9, high: 5.5 } }],
    })
  ).id;
  ({ chatId } = await seedChat(deps, accountId, "Scoped chat"));
});

/** The scope each tool needs, as the brief assigns them by what the tool reads or changes. */
const EXPECTED: Record<Scope, string[]> = {
  "papers:read": [
    "search_papers_by_title",
    "search_papers",
    "search_papers_advanced",
    "get_papers",
    "recent_papers",
    "list_paper_categories",
    "paper_facets",
    "get_condition_reference",
    "search_conditions",
    "get_condition",
    "get_medication_reference",
    "get_medication_label_sections",
    "get_medication_ndcs",
    "list_symptom_options",
  ],
  "account:read": ["get_account"],
  "health:read": [
    "get_health_profile",
    "list_health_logs",
    "get_health_log",
    "summarize_health_log",
    "export_health_log",
    "list_lab_panels",
    "get_lab_history",
    "get_upload",
  ],
  "health:write": [
    "save_health_profile",
    "delete_health_profile",
    "create_health_log",
    "update_health_log",
    "delete_health_log",
    "add_health_log_entry",
  ],
  chat: ["health_chat", "list_chats", "get_chat", "update_chat", "delete_chat", "share_chat", "list_models"],
};

describe("tools", () => {
  test("every tool has exactly one scope, the one its data calls for, shown in tools/list as _meta", async () => {
    const { result } = await mcpRpc(caller(), "tools/list");
    const listed = result.tools as { name: string; _meta?: Record<string, unknown> }[];
    expect(listed).toHaveLength(36);
    const byScope = Object.fromEntries(SCOPE_NAMES.map((scope) => [scope, [] as string[]]));
    for (const tool of listed) byScope[tool._meta?.[SCOPE_META] as Scope]?.push(tool.name);
    expect(byScope).toEqual(EXPECTED);
    expect(TOOLS.map((tool) => `${tool.name} ${tool.scope}`)).toEqual(
      listed.map((tool) => `${tool.name} ${tool._meta?.[SCOPE_META]}`),
    );
  });

  test.each(TOOLS.map((tool) => [tool.name, tool.scope] as const))(
    "%s: refused without %s before its arguments are read; not refused for scope with it",
    async (name, scope) => {
      // Even arguments the adapter refuses whatever the schema says (a reserved key) are not read.
      for (const args of [{}, JSON.parse('{"__proto__": {"x": 1}}')]) {
        const without = await mcpRpc(caller(allBut(scope)), "tools/call", { name, arguments: args });
        expect(without.result.isError).toBe(true);
        expect(without.result.content[0].text).toContain(`\`${scope}\` scope`);
      }
      const withIt = await mcpRpc(caller([scope]), "tools/call", { name, arguments: { surprise: 1 } });
      // The unknown argument is refused now: the scope let the call through to validation.
      expect(withIt.result.isError).toBe(true);
      expect(withIt.result.content[0].text).not.toContain("scope");
      expect(withIt.result.content[0].text).toContain("Invalid arguments");
    },
  );

  test("a write refused for its scope changes nothing", async () => {
    const before = (await listLogs(caller(), { limit: 100 })).trackers.length;
    const refused = await mcpRpc(caller(["health:read"]), "tools/call", {
      name: "create_health_log",
      arguments: { title: "Should not exist", kind: "acute" },
    });
    expect(refused.result.content[0].text).toContain("`health:write` scope");
    expect((await listLogs(caller(), { limit: 100 })).trackers.length).toBe(before);
    const allowed = await mcpRpc(caller(["health:write"]), "tools/call", {
      name: "create_health_log",
      arguments: { title: "Allowed log", kind: "acute" },
    });
    expect(allowed.result.isError).toBeUndefined();
    expect((await listLogs(caller(), { limit: 100 })).trackers.length).toBe(before + 1);
    await mcpRpc(caller(), "tools/call", {
      name: "delete_health_log",
      arguments: { trackerId: allowed.result.structuredContent.id },
    });
  });
});

describe("resources", () => {
  const uris = () => ({
    "papers:read": `paper://${paper.id}`,
    "health:read": `health-log://${logId}`,
    chat: `chat://${chatId}`,
  });

  test.each(["papers:read", "health:read", "chat"] as const)(
    "reading a URI that needs %s: refused naming it without, read with only it",
    async (scope) => {
      const uri = uris()[scope];
      const refused = await mcpRpc(caller(allBut(scope)), "resources/read", { uri });
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toContain(`\`${scope}\` scope`);
      expect(JSON.stringify(refused)).not.toContain("Scoped");
      const read = await mcpRpc(caller([scope]), "resources/read", { uri });
      expect(read.error).toBeUndefined();
      expect(read.result.contents[0].uri).toBe(uri);
    },
  );

  test("lab-panel:// needs health:read too", async () => {
    const uri = `lab-panel://${panelId}`;
    expect((await mcpRpc(caller(["chat", "papers:read"]), "resources/read", { uri })).error?.message).toContain(
      "`health:read` scope",
    );
    expect(
      JSON.parse((await mcpRpc(caller(["health:read"]), "resources/read", { uri })).result.contents[0].text).id,
    ).toBe(panelId);
  });

  test("resources/list leaves out what the token may not read", async () => {
    const schemes = async (scopes?: Scope[]) => {
      const { result } = await mcpRpc(caller(scopes), "resources/list");
      return new Set((result.resources as { uri: string }[]).map((r) => r.uri.split("://")[0]));
    };
    expect(await schemes()).toEqual(new Set(["health-record", "health-log", "lab-panel", "chat"]));
    expect(await schemes(["chat"])).toEqual(new Set(["chat"]));
    expect(await schemes(["health:read"])).toEqual(new Set(["health-record", "health-log", "lab-panel"]));
    expect(await schemes(["papers:read", "health:write", "account:read"])).toEqual(new Set());
  });

  test("resources/templates/list shows each template's scope", async () => {
    const { result } = await mcpRpc(caller(["account:read"]), "resources/templates/list");
    const scopes = Object.fromEntries(
      (result.resourceTemplates as { uriTemplate: string; _meta: Record<string, string> }[]).map((t) => [
        t.uriTemplate,
        t._meta[SCOPE_META],
      ]),
    );
    expect(scopes).toEqual({
      "paper://{arxivId}": "papers:read",
      "health-log://{id}": "health:read",
      "lab-panel://{id}": "health:read",
      "chat://{id}": "chat",
      "health-record://imports/{importId}": "health:read",
    });
  });
});

describe("prompts", () => {
  test("prompts/list shows every scope a prompt needs", async () => {
    const { result } = await mcpRpc(caller([]), "prompts/list");
    const scopes = Object.fromEntries(
      (result.prompts as { name: string; _meta: Record<string, string[]> }[]).map((p) => [
        p.name,
        p._meta[SCOPES_META],
      ]),
    );
    expect(scopes).toEqual({
      prepare_doctor_visit: ["health:read"],
      explain_condition: ["papers:read"],
      check_my_medications: ["health:read", "papers:read"],
      literature_review: ["papers:read"],
    });
  });

  test.each([
    ["prepare_doctor_visit", {}, ["papers:read", "chat"], "health:read"],
    ["explain_condition", { condition: "asthma" }, ["health:read"], "papers:read"],
    ["check_my_medications", {}, ["health:read"], "papers:read"],
    ["check_my_medications", {}, ["papers:read"], "health:read"],
    ["literature_review", { topic: "quantum" }, ["health:read", "chat"], "papers:read"],
  ] as const)("%s %j with %j: an error naming %s", async (name, args, scopes, missing) => {
    const answer = await mcpRpc(caller([...scopes]), "prompts/get", { name, arguments: args });
    expect(answer.result).toBeUndefined();
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain(`\`${missing}\` scope`);
    expect(answer.error?.data).toEqual({ scope: missing });
  });

  test("with its scopes a prompt is built from the caller's data", async () => {
    const answer = await mcpRpc(caller(["health:read"]), "prompts/get", {
      name: "prepare_doctor_visit",
      arguments: {},
    });
    const uris = (answer.result.messages as { content: { type: string; resource?: { uri: string } } }[]).flatMap(
      (message) => (message.content.resource ? [message.content.resource.uri] : []),
    );
    expect(uris).toEqual(expect.arrayContaining([`health-log://${logId}`, `lab-panel://${panelId}`]));
  });
});

describe("completions", () => {
  const complete = async (scopes: Scope[] | undefined, ref: object, name: string, value: string) => {
    const answer = await mcpRpc(caller(scopes), "completion/complete", { ref, argument: { name, value } });
    expect(answer.error).toBeUndefined();
    return answer.result.completion as { values: string[]; total?: number; hasMore?: boolean };
  };
  const paperRef = { type: "ref/resource", uri: "paper://{arxivId}" };
  const logRef = { type: "ref/resource", uri: "health-log://{id}" };
  const visit = { type: "ref/prompt", name: "prepare_doctor_visit" };

  test("paper ids need papers:read", async () => {
    // Long enough that other files' papers cannot push this one past the first 100 values.
    const prefix = paper.id.slice(0, -1);
    expect((await complete(["papers:read"], paperRef, "arxivId", prefix)).values).toContain(paper.id);
    expect(await complete(allBut("papers:read"), paperRef, "arxivId", prefix)).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    });
  });

  test("log titles and log ids need health:read", async () => {
    expect((await complete(["health:read"], visit, "log", "Scoped")).values).toEqual(["Scoped cough"]);
    expect((await complete(allBut("health:read"), visit, "log", "Scoped")).values).toEqual([]);
    expect((await complete(["health:read"], logRef, "id", "scoped")).values).toEqual([logId]);
    expect((await complete(allBut("health:read"), logRef, "id", logId.slice(0, 8))).values).toEqual([]);
  });

  test("medication names need papers:read; the profile's own only come with health:read", async () => {
    const medication = { type: "ref/prompt", name: "check_my_medications" };
    // The made-up name is only in the profile (the reference cache knows real names only).
    expect((await complete(["papers:read", "health:read"], medication, "medication", "zylo")).values).toEqual([
      "Zylotestamine",
    ]);
    expect((await complete(["papers:read"], medication, "medication", "zylo")).values).toEqual([]);
    expect((await complete(["health:read"], medication, "medication", "zylo")).values).toEqual([]);
  });
});

describe("docs/mcp.md", () => {
  test("the Scopes table lists every tool with its scope, in catalog order", async () => {
    const text = await Bun.file(join(import.meta.dir, "../../../docs/mcp.md")).text();
    const section = text.slice(text.indexOf("\n## Scopes"));
    const end = section.indexOf("\n## ", 1);
    const rows = [
      ...(end === -1 ? section : section.slice(0, end)).matchAll(/^\| `([a-z_]+)` \| `([a-z:]+)` \|/gm),
    ].map((match) => `${match[1]} ${match[2]}`);
    expect(rows).toEqual(TOOLS.map((tool) => `${tool.name} ${tool.scope}`));
  });
});
