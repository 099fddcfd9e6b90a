import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createApp } from "../../../api/app";
import { handleMcpRequest } from "../../../api/mcp/handler";
import { listRecordResources } from "../../../api/mcp/healthRecordResources";
import { SCOPE_META } from "../../../api/mcp/meta";
import { SCOPE_NAMES, type Scope } from "../../../shared/auth/scopes";
import { type Ctx, contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { readHealthRecord } from "../../../shared/healthRecords/read";
import { insertImport } from "../../../shared/healthRecords/repository";
import type { HealthProfile, RecordImport } from "../../../shared/healthRecords/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../../helpers/healthRecordSamples";
import { call, createTestAccount, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { bearer, connectMcp, ERAS, type Era, mcpRpc, type RpcAnswer } from "../../helpers/mcpData";
import { importRecord } from "../../helpers/records";

/**
 * health-record:// resources over MCP, with records imported through the API as a person imports
 * them (upload, processed by a real uploads worker, then import): the template and the listed
 * resources, each read and checked against what the importer reads from the same file (a Synthea
 * FHIR R4 patient and HL7's C-CDA CCD), another account's import, completions, the refusals
 * (consent, plan, scope) in both protocol eras, and the list's paging inside its section.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let server: ReturnType<TestApp["listen"]>;
let url: URL;
const clients: Client[] = [];

const SUMMARY = "health-record://summary";
const FHIR = "health-record://fhir";
const TEMPLATE = "health-record://imports/{importId}";
const importUri = (id: string) => `health-record://imports/${id}`;
const NOBODY = "019aa000-0000-7000-8000-000000000000";

const JOHNNIE = readSample(SYNTHEA_BUNDLES.johnnie);
const CCD = readSample(CCDA_DOCUMENTS.hl7Ccd);
const fromJohnnie = readHealthRecord(JOHNNIE, "johnnie.json");
const fromCcd = readHealthRecord(CCD, "ccd.xml");

interface Holder {
  account: TestAccount;
  imported: RecordImport;
  client: Client;
}
let owner: Holder;
let other: Holder;

let era: Era = "2025-11-25";
async function connect(key: string): Promise<Client> {
  const client = await connectMcp(url, bearer(key), "health-records-test", era);
  clients.push(client);
  return client;
}

async function holder(text: string, filename: string, contentType: string): Promise<Holder> {
  const account = await healthAccount(deps, app);
  const imported = await importRecord(app, account.apiKey, text, { filename, contentType });
  return { account, imported, client: undefined as unknown as Client };
}

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
  server = app.listen({ hostname: "127.0.0.1", port: 0 });
  url = new URL(`http://127.0.0.1:${server.server?.port}/api/mcp`);
  [owner, other] = await Promise.all([
    holder(JOHNNIE, "johnnie.json", "application/fhir+json"),
    holder(CCD, "everyman-ccd.xml", "application/xml"),
  ]);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
  await workers?.close();
});

const text = (contents: unknown) => (contents as { text: string }).text;
const parsed = (contents: unknown) => JSON.parse(text(contents));
const names = (items: { name: string }[]) => new Set(items.map((item) => item.name));
const restJson = async <T>(account: TestAccount, path: string) =>
  json<T>(await call(app, `/api/v1${path}`, { key: account.apiKey }));
const complete = (client: Client, value: string) =>
  client
    .complete({ ref: { type: "ref/resource", uri: TEMPLATE }, argument: { name: "importId", value } })
    .then((answer) => answer.completion);

describe.each(ERAS)("protocol %s", (version) => {
  beforeAll(async () => {
    era = version;
    owner.client = await connect(owner.account.apiKey);
    other.client = await connect(other.account.apiKey);
  });

  test("resources/templates/list: the import template, health:read, JSON", async () => {
    const { resourceTemplates } = await owner.client.listResourceTemplates();
    const template = resourceTemplates.find((t) => t.uriTemplate === TEMPLATE);
    expect(template).toMatchObject({ name: "health-record-import", mimeType: "application/json" });
    expect(template?.description).toContain("health-record://summary");
    expect(template?._meta?.[SCOPE_META]).toBe("health:read");
  });

  test("resources/list: the summary, the FHIR record and the caller's import, before the other sections", async () => {
    const { resources } = await owner.client.listResources();
    const { id, filename } = owner.imported;
    expect(resources.slice(0, 3).map((r) => [r.uri, r.mimeType])).toEqual([
      [SUMMARY, "application/json"],
      [FHIR, "application/fhir+json"],
      [importUri(id), "application/json"],
    ]);
    // Then the lab panels the import stored (the account has no logs or chats).
    const rest = resources.slice(3).map((r) => r.uri.split("://")[0]);
    expect(rest).toEqual(Array(owner.imported.labPanels).fill("lab-panel"));
    expect(resources[0]?.description).toContain("1 imported record");
    expect(resources[2]).toMatchObject({ name: filename, title: `Health record import: ${filename}` });
    const { kept } = fromJohnnie.summary;
    expect(resources[2]?.description).toContain("FHIR R4 Bundle about Johnnie679 Hermiston71");
    expect(resources[2]?.description).toContain(`kept ${kept.conditions} conditions`);
    expect(resources[2]?.description).toContain(`${kept.immunizations} immunizations`);
    expect(JSON.stringify(resources)).not.toContain(other.imported.id);
    expect(JSON.stringify(resources)).not.toContain("Everyman");
  });

  test("summary (FHIR R4 import): the file's active conditions and medications, its immunizations and counts", async () => {
    const { contents } = await owner.client.readResource({ uri: SUMMARY });
    expect(contents.map((c) => [c.uri, c.mimeType])).toEqual([[SUMMARY, "application/json"]]);
    const summary = parsed(contents[0]);
    expect(summary.imports).toHaveLength(1);
    expect(summary.imports[0]).toMatchObject({
      id: owner.imported.id,
      filename: "johnnie.json",
      format: "fhir",
      kept: fromJohnnie.summary.kept,
      skipped: fromJohnnie.summary.skipped,
    });
    const active = <T extends { active: boolean }>(items: T[]) => items.filter((item) => item.active);
    expect(names(summary.importedConditions)).toEqual(names(active(fromJohnnie.conditions)));
    expect(names(summary.importedConditions)).toContain("Child attention deficit disorder");
    expect(names(summary.importedMedications)).toEqual(names(active(fromJohnnie.medications)));
    expect(summary.allergies).toEqual([]);
    expect(summary.immunizations.length).toBeGreaterThan(0);
    expect(summary.immunizations.length).toBeLessThanOrEqual(fromJohnnie.summary.kept.immunizations);
    // The same sections the profile shows.
    const profile = await restJson<HealthProfile>(owner.account, "/health/profile");
    for (const section of ["allergies", "importedConditions", "importedMedications", "immunizations"] as const) {
      expect(summary[section]).toEqual(profile[section]);
    }
  });

  test("summary (C-CDA import): the document's allergies that still hold", async () => {
    const summary = parsed((await other.client.readResource({ uri: SUMMARY })).contents[0]);
    expect(summary.imports.map((i: RecordImport) => [i.format, i.kept])).toEqual([["ccda", fromCcd.summary.kept]]);
    const holding = fromCcd.allergies.filter((a) => !["inactive", "resolved"].includes(a.clinicalStatus ?? ""));
    expect(summary.allergies.map((a: { substance: string }) => a.substance).sort()).toEqual(
      holding.map((a) => a.substance).sort(),
    );
    expect(summary.allergies.length).toBeGreaterThan(0);
  });

  test("imports/{importId}: the import as REST answers it", async () => {
    const uri = importUri(owner.imported.id);
    const { contents } = await owner.client.readResource({ uri });
    expect(contents.map((c) => [c.uri, c.mimeType])).toEqual([[uri, "application/json"]]);
    const read = parsed(contents[0]);
    expect(read).toEqual(await restJson(owner.account, `/health/records/imports/${owner.imported.id}`));
    expect(read).toMatchObject({ kept: fromJohnnie.summary.kept, skipped: fromJohnnie.summary.skipped });
    expect(read.patient.name).toBe("Johnnie679 Hermiston71");
    expect(read.labPanels).toBeGreaterThan(0);
  });

  test("fhir: the whole record as a FHIR R4 Bundle holding what the file held", async () => {
    const { contents } = await owner.client.readResource({ uri: FHIR });
    expect(contents.map((c) => [c.uri, c.mimeType])).toEqual([[FHIR, "application/fhir+json"]]);
    const bundle = parsed(contents[0]);
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection" });
    type Entry = { resource: { resourceType: string; code?: { text: string }; name?: { text: string }[] } };
    const ofType = (type: string) => (bundle.entry as Entry[]).filter((e) => e.resource.resourceType === type);
    expect(ofType("Patient")[0]?.resource.name?.[0]?.text).toBe("Johnnie679 Hermiston71");
    // Every condition of the file, active or not, as the export keeps them.
    expect(new Set(ofType("Condition").map((e) => e.resource.code?.text))).toEqual(names(fromJohnnie.conditions));
    // The same resources, by type, as the REST export (ids and timestamps are fresh each time).
    const rest = await restJson<{ entry: Entry[] }>(owner.account, "/health/records/export");
    const countByType = (entries: Entry[]) =>
      entries.reduce<Record<string, number>>((counts, e) => {
        counts[e.resource.resourceType] = (counts[e.resource.resourceType] ?? 0) + 1;
        return counts;
      }, {});
    expect(countByType(bundle.entry)).toEqual(countByType(rest.entry));
    // Read back by the importer: the same conditions and immunizations as the file.
    const again = readHealthRecord(text(contents[0]), "export.json");
    expect(names(again.conditions)).toEqual(names(fromJohnnie.conditions));
    expect(again.immunizations.length).toBe(ofType("Immunization").length);
  });

  test("another account's import → -32602 with the URI, naming nothing of theirs; as an unknown id", async () => {
    const uri = importUri(other.imported.id);
    const error = await owner.client.readResource({ uri }).catch((e) => e);
    expect(error).toMatchObject({ code: -32602, data: { uri, kind: "NOT_FOUND" } });
    expect(String(error.message)).not.toContain("everyman");
    expect(String(error.message)).not.toContain("Everyman");
    await expect(owner.client.readResource({ uri: importUri(NOBODY) })).rejects.toMatchObject({
      code: -32602,
      data: { uri: importUri(NOBODY), kind: "NOT_FOUND" },
    });
    const summary = text((await owner.client.readResource({ uri: SUMMARY })).contents[0]);
    expect(summary).not.toContain(other.imported.id);
  });

  test("a malformed path → -32602 saying what health-record:// takes", async () => {
    for (const uri of [
      "health-record://imports/12345",
      "health-record://bogus",
      "health-record://",
      "health-record://summary/extra",
    ]) {
      await expect(owner.client.readResource({ uri })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("summary, fhir, or imports/"),
      });
    }
    // A client that expands the template percent-encodes nothing here, but one that encodes the `/` is read.
    const encoded = `health-record://imports%2F${owner.imported.id}`;
    expect(parsed((await owner.client.readResource({ uri: encoded })).contents[0]).id).toBe(owner.imported.id);
  });

  test("completion of {importId}: the caller's imports by filename or id, never another's", async () => {
    const { id } = owner.imported;
    expect(await complete(owner.client, "JOHN")).toEqual({ values: [id], total: 1, hasMore: false });
    expect((await complete(owner.client, id.slice(0, 13))).values).toEqual([id]);
    expect((await complete(owner.client, "")).values).toEqual([id]);
    expect((await complete(owner.client, "everyman")).values).toEqual([]);
    expect((await complete(owner.client, other.imported.id.slice(0, 20))).values).toEqual([]);
    expect((await complete(other.client, "every")).values).toEqual([other.imported.id]);
  });

  test("without consent: each refused naming consent, none listed, nothing completed", async () => {
    const bare = await healthAccount(deps, app, { consent: false });
    const client = await connect(bare.apiKey);
    for (const uri of [SUMMARY, FHIR, importUri(owner.imported.id)]) {
      const error = await client.readResource({ uri }).catch((e) => e);
      expect(error).toMatchObject({ code: -32602, data: { uri, kind: "CONSENT_REQUIRED" } });
      expect(String(error.message)).toMatch(/consent/i);
    }
    expect((await client.listResources()).resources).toEqual([]);
    expect((await complete(client, "")).values).toEqual([]);
  });

  test("on the Free plan: each refused naming the plan, none listed", async () => {
    const free = await createTestAccount(deps, "free");
    const client = await connect(free.apiKey);
    for (const uri of [SUMMARY, FHIR, importUri(owner.imported.id)]) {
      const error = await client.readResource({ uri }).catch((e) => e);
      expect(error).toMatchObject({ code: -32602, data: { kind: "PLAN_REQUIRED" } });
      expect(String(error.message)).toContain("free plan");
    }
    expect((await client.listResources()).resources).toEqual([]);
  });
});

/** One JSON-RPC request in-process for a caller holding some scopes (as an OAuth token), in either era. */
async function rpc(ctx: Ctx, version: Era, method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
  if (version === "2025-11-25") return mcpRpc(ctx, method, params);
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "scoped", version: "1.0.0" },
  };
  const { uri } = params;
  const name: Record<string, string> =
    typeof uri === "string" && method === "resources/read" ? { "mcp-name": uri } : {};
  const request = new Request("http://localhost/api/mcp", {
    method: "POST",
    headers: {
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": version,
      "mcp-method": method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta } }),
  });
  const response = await handleMcpRequest(request, ctx);
  if (response.status !== 200) throw new Error(`MCP answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as RpcAnswer;
}

describe.each(ERAS)("OAuth scopes, protocol %s", (version) => {
  const caller = (scopes: Scope[]): Ctx =>
    contextFor(deps, `req_records_${Math.random().toString(36).slice(2)}`, {
      accountId: owner.account.accountId,
      plan: "go",
      scopes: new Set(scopes),
    });
  const withoutHealthRead = () => caller(SCOPE_NAMES.filter((scope) => scope !== "health:read"));

  test.each([SUMMARY, FHIR, "import"])(
    "%s: refused naming health:read without it, read with only it",
    async (which) => {
      const uri = which === "import" ? importUri(owner.imported.id) : which;
      const refused = await rpc(withoutHealthRead(), version, "resources/read", { uri });
      expect(refused.error).toMatchObject({ code: -32602, data: { scope: "health:read" } });
      expect(refused.error?.message).toContain("`health:read` scope");
      expect(JSON.stringify(refused)).not.toContain("Johnnie");
      const read = await rpc(caller(["health:read"]), version, "resources/read", { uri });
      expect(read.error).toBeUndefined();
      expect(read.result.contents[0].uri).toBe(uri);
      // 2026-07-28 answers carry cache hints: the caller's own record is private, never reused.
      if (version === "2026-07-28") expect(read.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    },
  );

  test("resources/list and completions leave the record out without health:read", async () => {
    const listed = async (ctx: Ctx) =>
      ((await rpc(ctx, version, "resources/list", {})).result.resources as { uri: string }[]).map((r) => r.uri);
    expect(await listed(withoutHealthRead())).toEqual([]);
    const records = (await listed(caller(["health:read"]))).filter((uri) => uri.startsWith("health-record://"));
    expect(records).toEqual([SUMMARY, FHIR, importUri(owner.imported.id)]);
    const params = { ref: { type: "ref/resource", uri: TEMPLATE }, argument: { name: "importId", value: "" } };
    expect((await rpc(withoutHealthRead(), version, "completion/complete", params)).result.completion.values).toEqual(
      [],
    );
    expect(
      (await rpc(caller(["health:read"]), version, "completion/complete", params)).result.completion.values,
    ).toEqual([owner.imported.id]);
  });
});

describe("the list's health-record section, page by page", () => {
  test("summary and FHIR first, then imports newest first; an import undone between pages shifts nothing", async () => {
    const account = await healthAccount(deps, app);
    const ctx = contextFor(deps, "req_record_pages", { accountId: account.accountId, plan: "go" });
    const seeded: string[] = [];
    for (const letter of ["a", "b", "c", "d"]) {
      const id = Bun.randomUUIDv7();
      await insertImport(deps.sql, {
        id,
        accountId: account.accountId,
        fileId: Bun.randomUUIDv7(),
        filename: `${letter}.json`,
        sha256: letter.repeat(64),
        format: "fhir",
        patient: { name: null, birthDate: null },
        summary: {
          kept: { conditions: 0, medications: 0, allergies: 0, labResults: 0, immunizations: 0 },
          skipped: {},
          problems: [],
          labPanels: 0,
          labResultsAlreadyStored: 0,
        },
      });
      seeded.push(id);
    }
    const [a, b, c, d] = seeded as [string, string, string, string];
    const uris = (page: { resources: { uri: string }[] }) => page.resources.map((r) => r.uri);

    const first = await listRecordResources(ctx, 2, undefined);
    expect(uris(first)).toEqual([SUMMARY, FHIR]);
    const second = await listRecordResources(ctx, 2, first.next ?? undefined);
    expect(uris(second)).toEqual([importUri(d), importUri(c)]);
    // The import the cursor names is undone before the next page is asked for.
    const undo = await call(app, `/api/v1/health/records/imports/${c}`, { method: "DELETE", key: account.apiKey });
    expect(undo.status).toBe(200);
    const third = await listRecordResources(ctx, 2, second.next ?? undefined);
    expect(uris(third)).toEqual([importUri(b), importUri(a)]);
    expect(third.next).toBeNull();

    const all = await listRecordResources(ctx, 50, undefined);
    expect(uris(all)).toEqual([SUMMARY, FHIR, importUri(d), importUri(b), importUri(a)]);
    expect(all.next).toBeNull();
    await expect(listRecordResources(ctx, 2, "not-ours")).rejects.toMatchObject({ code: -32602 });
  });
});
