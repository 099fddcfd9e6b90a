import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { startOAuthServer } from "../../../api/oauth/provider";
import { setPlan } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, errorOf, json, mcpCall, modernMcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { idProperties, type JsonSchema, pathsOf, requiredOps, snapshotOf } from "../../helpers/isolation";
import { ERAS, type Era } from "../../helpers/mcpData";
import { importRecord } from "../../helpers/records";
import { type Presigned, presign, put, uploadFile } from "../../helpers/uploads";

/**
 * Account B, entitled to every feature, uses account A's ids on every route and MCP tool that takes
 * one: each answer is 404 (REST) or a not-found `isError` result (MCP), and A's rows in PostgreSQL
 * are byte-identical afterwards. The routes and tools come from the OpenAPI document, Elysia's route
 * table and `tools/list`; a route or tool that takes an id and has no probe here fails the coverage
 * test, so a new one cannot skip isolation.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let a: TestAccount;
let b: TestAccount;
let ids: OwnedIds;

/** Distinctive profile text of A, looked for in every answer B gets. */
const MARKER = `isolation-marker-${crypto.randomUUID().slice(0, 8)}`;

interface OwnedIds {
  trackerId: string;
  otherTrackerId: string;
  trackerCursor: string;
  chatId: string;
  otherChatId: string;
  chatCursor: string;
  messageId: string;
  shareToken: string;
  fileId: string;
  pendingFileId: string;
  labPanelId: string;
  labCursor: string;
  /** A health-record share link of A's. */
  shareLinkId: string;
  /** A ready upload of A's holding a FHIR Bundle, and the import made from it. */
  recordFileId: string;
  recordImportId: string;
  /** An OAuth grant of A's (a connected application on the dashboard). */
  grantId: string;
}

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["chat", "uploads"] });
  app = createApp(deps);
  a = await healthAccount(deps, app);
  b = await healthAccount(deps, app);
  ids = await createOneOfEverything(a);
}, 120_000);

afterAll(async () => {
  await workers?.close();
});

let webSession: Promise<{ cookie: string; csrfToken: string }> | undefined;

/**
 * B's website session (the website's sign-up, then the Go plan and consent), made on first use:
 * only when website routes are served.
 */
function bWeb(): Promise<{ cookie: string; csrfToken: string }> {
  webSession ??= (async () => {
    const email = `isolation-${crypto.randomUUID()}@example.test`;
    const response = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email, password: "correct horse battery" },
    });
    expect(response.status).toBe(201);
    const cookie = /^(sid=[^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1] as string;
    const { account, csrfToken } = await json<{ account: { id: string }; csrfToken: string }>(response);
    await setPlan(
      { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
      { accountId: account.id, plan: "go" },
    );
    const user = { cookie, csrfToken };
    const consent = await call(app, "/api/health/profile", {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrfToken },
      body: { consentGiven: true, conditions: [], medications: [] },
    });
    // Without a profile mirror there is no consent to give, and no health mirror to probe.
    expect([200, 404]).toContain(consent.status);
    return user;
  })();
  return webSession;
}

async function createOneOfEverything(owner: TestAccount): Promise<OwnedIds> {
  const key = owner.apiKey;
  const profile = await call(app, "/api/v1/health/profile", {
    method: "POST",
    key,
    body: { consentGiven: true, conditions: [`${MARKER} asthma`], medications: [`${MARKER} salbutamol`] },
  });
  expect(profile.status).toBe(200);
  const tracker = await createTracker(app, key, "A's flu log");
  const other = await createTracker(app, key, "A's second log");
  expect((await addEntry(app, key, tracker.id, { severity: 6, note: `${MARKER} note` })).status).toBe(201);
  const trackers = await json<{ next_cursor: string }>(await call(app, "/api/v1/health/trackers?limit=1", { key }));
  const chat = await json<ChatReply>(
    await call(app, "/api/v1/health/chat", { method: "POST", key, body: { message: "what is in my profile?" } }),
  );
  const otherChat = await json<ChatReply>(
    await call(app, "/api/v1/health/chat", { method: "POST", key, body: { message: "show my health logs" } }),
  );
  const chats = await json<{ next_cursor: string }>(await call(app, "/api/v1/chats?surface=health&limit=1", { key }));
  const share = await json<{ token: string }>(
    await call(app, `/api/v1/chats/${chat.chat_id}/share`, { method: "POST", key }),
  );
  const file = await uploadFile(app, key, {
    bytes: new TextEncoder().encode(`${MARKER} lab notes`),
    contentType: "text/plain",
    filename: "notes.txt",
  });
  expect(file.status).toBe("ready");
  const pending = await json<Presigned>(
    await presign(app, key, { filename: "later.txt", contentType: "text/plain", size: 5 }),
  );
  const labs = await createLabPanels(key);
  const record = await importOwnRecord(key);
  const shareLink = await call(app, "/api/v1/health/share-links", { method: "POST", key, body: { label: MARKER } });
  expect(shareLink.status).toBe(201);
  const grantId = await connectApplication(owner.accountId);
  return {
    trackerId: tracker.id,
    otherTrackerId: other.id,
    trackerCursor: trackers.next_cursor,
    chatId: chat.chat_id,
    otherChatId: otherChat.chat_id,
    chatCursor: chats.next_cursor,
    messageId: chat.message.id,
    shareToken: share.token,
    fileId: file.fileId,
    pendingFileId: pending.fileId,
    ...labs,
    shareLinkId: (await json<{ id: string }>(shareLink)).id,
    ...record,
    grantId,
  };
}

/** A FHIR Bundle of A's (a patient named after the marker, one condition), uploaded and imported. */
async function importOwnRecord(key: string): Promise<{ recordFileId: string; recordImportId: string }> {
  const bundle = {
    resourceType: "Bundle",
    type: "collection",
    entry: [
      {
        fullUrl: "urn:uuid:6f1c1a2e-0000-4000-8000-000000000001",
        resource: { resourceType: "Patient", name: [{ text: `${MARKER} patient` }] },
      },
      {
        fullUrl: "urn:uuid:6f1c1a2e-0000-4000-8000-000000000002",
        resource: {
          resourceType: "Condition",
          code: { text: `${MARKER} migraine` },
          subject: { reference: "urn:uuid:6f1c1a2e-0000-4000-8000-000000000001" },
        },
      },
    ],
  };
  const imported = await importRecord(app, key, JSON.stringify(bundle));
  return { recordFileId: imported.fileId, recordImportId: imported.id };
}

/** A grant of A's, made with the authorization server's own models. */
async function connectApplication(accountId: string): Promise<string> {
  const oauth = await startOAuthServer(deps);
  try {
    // The grant is what the dashboard lists and revokes; no registered client is needed for that.
    const grant = new oauth.provider.Grant({ accountId, clientId: "isolation-client" });
    grant.addResourceScope(oauth.resource, "papers:read health:read");
    return await grant.save();
  } finally {
    await oauth.close();
  }
}

/** Two lab panels of A with a glucose result and A's marker as the lab; a cursor past the first. */
async function createLabPanels(key: string): Promise<{ labPanelId: string; labCursor: string }> {
  const ids: string[] = [];
  for (const collectedAt of ["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"]) {
    const body = { collectedAt, lab: `${MARKER} lab`, results: [{ name: "Glucose", value: 90, unit: "mg/dL" }] };
    const created = await call(app, "/api/v1/health/labs", { method: "POST", key, body });
    expect(created.status).toBe(201);
    ids.push((await json<{ id: string }>(created)).id);
  }
  const page = await json<{ next_cursor: string }>(await call(app, "/api/v1/health/labs?limit=1", { key }));
  return { labPanelId: ids[0] as string, labCursor: page.next_cursor };
}

// ---------------------------------------------------------------------------------------------
// The probe tables: how B uses A's ids on each operation, and what B must get.

type Expect = "notFound" | "scoped" | { status: number };

interface RestProbe {
  /** `METHOD /path` as in the OpenAPI document. */
  op: string;
  /** B's credential: its API key, or (website paths) its session cookie and CSRF token. */
  auth?: "session";
  /** The path parameters and id-like query or body properties this probe fills with A's ids. */
  covers: string[];
  request: (ids: OwnedIds) => { path: string; body?: unknown; headers?: Record<string, string> };
  expect: Expect;
}

const REST_PROBES: RestProbe[] = [
  ...["GET", "PATCH", "DELETE"].map((method) => ({
    op: `${method} /api/v1/health/trackers/{trackerId}`,
    covers: ["trackerId"],
    request: (i: OwnedIds) => ({
      path: `/api/v1/health/trackers/${i.trackerId}`,
      ...(method === "PATCH" ? { body: { title: "B was here" } } : {}),
    }),
    expect: "notFound" as const,
  })),
  {
    op: "POST /api/v1/health/trackers/{trackerId}/entries",
    covers: ["trackerId"],
    request: (i) => ({ path: `/api/v1/health/trackers/${i.trackerId}/entries`, body: { severity: 1 } }),
    expect: "notFound",
  },
  {
    op: "GET /api/v1/health/trackers/{trackerId}/export",
    covers: ["trackerId"],
    request: (i) => ({ path: `/api/v1/health/trackers/${i.trackerId}/export?format=csv` }),
    expect: "notFound",
  },
  {
    op: "GET /api/v1/health/trackers/{trackerId}/summary",
    covers: ["trackerId"],
    request: (i) => ({ path: `/api/v1/health/trackers/${i.trackerId}/summary` }),
    expect: "notFound",
  },
  {
    op: "GET /api/v1/health/trackers",
    covers: ["cursor"],
    request: (i) => ({ path: `/api/v1/health/trackers?cursor=${i.trackerCursor}` }),
    expect: "scoped",
  },
  ...["GET", "DELETE"].map((method) => ({
    op: `${method} /api/v1/health/labs/{panelId}`,
    covers: ["panelId"],
    request: (i: OwnedIds) => ({ path: `/api/v1/health/labs/${i.labPanelId}` }),
    expect: "notFound" as const,
  })),
  {
    op: "GET /api/v1/health/labs",
    covers: ["cursor"],
    request: (i) => ({ path: `/api/v1/health/labs?cursor=${i.labCursor}` }),
    expect: "scoped",
  },
  // The name is an analyte's (public vocabulary); B's history of it holds none of A's results.
  {
    op: "GET /api/v1/health/labs/analytes/{name}",
    covers: ["name"],
    request: () => ({ path: "/api/v1/health/labs/analytes/glucose" }),
    expect: "scoped",
  },
  // A's file is a text upload: ownership is checked before the type, so B learns nothing of it.
  {
    op: "POST /api/v1/health/labs/import",
    covers: ["file_id"],
    request: (i) => ({ path: "/api/v1/health/labs/import", body: { file_id: i.fileId } }),
    expect: "notFound",
  },
  // A's record upload: ownership is checked before anything is read, so B learns nothing of it.
  {
    op: "POST /api/v1/health/records/import",
    covers: ["file_id"],
    request: (i) => ({ path: "/api/v1/health/records/import", body: { file_id: i.recordFileId } }),
    expect: "notFound",
  },
  ...["GET", "DELETE"].map((method) => ({
    op: `${method} /api/v1/health/records/imports/{importId}`,
    covers: ["importId"],
    request: (i: OwnedIds) => ({ path: `/api/v1/health/records/imports/${i.recordImportId}` }),
    expect: "notFound" as const,
  })),
  {
    op: "DELETE /api/v1/health/share-links/{id}",
    covers: ["id"],
    request: (i) => ({ path: `/api/v1/health/share-links/${i.shareLinkId}` }),
    expect: "notFound",
  },
  {
    op: "GET /api/v1/health/chat/{chatid}",
    covers: ["chatid"],
    request: (i) => ({ path: `/api/v1/health/chat/${i.chatId}` }),
    expect: "notFound",
  },
  {
    op: "GET /api/v1/health/chat/{chatid}/stream",
    covers: ["chatid"],
    request: (i) => ({ path: `/api/v1/health/chat/${i.chatId}/stream` }),
    expect: "notFound",
  },
  {
    op: "POST /api/v1/health/chat",
    covers: ["chat_id"],
    request: (i) => ({ path: "/api/v1/health/chat", body: { message: "continue", chat_id: i.chatId } }),
    expect: "notFound",
  },
  {
    op: "POST /api/v1/health/chat",
    covers: ["attachment_ids"],
    request: (i) => ({ path: "/api/v1/health/chat", body: { message: "read this", attachment_ids: [i.fileId] } }),
    expect: "notFound",
  },
  // A quoted message's id is the client's own reference: stored with the quote, never looked up,
  // so B's turn runs on B's own new chat and reads nothing of A's.
  {
    op: "POST /api/v1/health/chat",
    covers: ["reply_contexts[].source_message_id"],
    request: (i) => ({
      path: "/api/v1/health/chat",
      body: { message: "about that", reply_contexts: [{ text: "quoted by B", source_message_id: i.messageId }] },
    }),
    expect: "scoped",
  },
  {
    op: "GET /api/v1/chats",
    covers: ["cursor"],
    request: (i) => ({ path: `/api/v1/chats?surface=health&cursor=${i.chatCursor}` }),
    expect: "scoped",
  },
  {
    op: "PATCH /api/v1/chats/{chatid}",
    covers: ["chatid"],
    request: (i) => ({ path: `/api/v1/chats/${i.chatId}`, body: { title: "B was here", pinned: true } }),
    expect: "notFound",
  },
  ...["DELETE /api/v1/chats/{chatid}", "POST /api/v1/chats/{chatid}/share", "DELETE /api/v1/chats/{chatid}/share"].map(
    (op) => ({
      op,
      covers: ["chatid"],
      request: (i: OwnedIds) => ({ path: op.split(" ")[1]?.replace("{chatid}", i.chatId) as string }),
      expect: "notFound" as const,
    }),
  ),
  {
    op: "GET /api/v1/uploads/{fileId}",
    covers: ["fileId"],
    request: (i) => ({ path: `/api/v1/uploads/${i.fileId}` }),
    expect: "notFound",
  },
  {
    op: "POST /api/v1/uploads/complete",
    covers: ["fileId"],
    request: (i) => ({ path: "/api/v1/uploads/complete", body: { fileId: i.pendingFileId } }),
    expect: "notFound",
  },
  // The signed PUT takes no key: its signature is the authorization. B's own valid signature on A's
  // pending upload is a signature for another file: 403, and A's upload stays pending (snapshot).
  {
    op: "PUT /api/v1/uploads/{fileId}/content",
    covers: ["fileId"],
    request: () => ({ path: "(built in the test from B's own presigned URL)" }),
    expect: { status: 403 },
  },
];

/** Website-only operations (session cookie); the website's mirrors of v1 paths reuse the v1 probes. */
const WEBSITE_PROBES: RestProbe[] = [
  {
    op: "DELETE /api/dashboard/keys/{id}",
    auth: "session",
    covers: ["id"],
    request: () => ({ path: `/api/dashboard/keys/${a.keyId}` }),
    expect: "notFound",
  },
  {
    op: "DELETE /api/dashboard/connections/{id}",
    auth: "session",
    covers: ["id"],
    request: (i) => ({ path: `/api/dashboard/connections/${i.grantId}` }),
    expect: "notFound",
  },
];

/**
 * The probes for what is served: the v1 probes, each again on the website's mirror of its path
 * (`/api/v1/x` → `/api/x`, session-authenticated) where the mirror exists, and the website's own.
 */
function probesFor(required: Map<string, string[]>): RestProbe[] {
  const mirrors = REST_PROBES.flatMap((probe) => {
    const op = probe.op.replace(" /api/v1/", " /api/");
    if (!required.has(op)) return [];
    const mirrored = (i: OwnedIds) => {
      const request = probe.request(i);
      return { ...request, path: request.path.replace(/^\/api\/v1\//, "/api/") };
    };
    return [{ ...probe, op, auth: "session" as const, request: mirrored }];
  });
  return [...REST_PROBES, ...mirrors, ...WEBSITE_PROBES.filter((probe) => required.has(probe.op))];
}

/** Operations whose path parameter or id is not something an account owns; each says why. */
const REST_NOT_OWNED: Record<string, string> = {
  "POST /api/v1/papers/search": "the `id` field of a fielded filter is an arXiv id: a public catalog",
  "GET /assets/{name}": "the website's static script and style files, the same for everyone",
  "GET /api/v1/papers/{id}": "arXiv ids: a public catalog, the same for every account",
  "GET /api/v1/health/condition/{mondoId}": "MONDO ids: public reference terms, not account data",
  "GET /oauth/authorize/{uid}":
    "an authorization in progress: it needs the provider's cookie of the browser that started it, not an account",
  "GET /oauth/interaction/{uid}":
    "the consent step of an authorization: bound to the starting browser's cookie (403 elsewhere), then to the signed-in session",
  "POST /oauth/interaction/{uid}":
    "the consent decision: bound to the starting browser's cookie and the session's CSRF token",
  "GET /api/v1/shared/{token}":
    "the share token is a capability readable without a key by design; revocation and the absence of profile data are tested below",
  "GET /share/{token}":
    "a health share link's token is a capability readable without sign-in by design; revocation, expiry and the absence of account identifiers are tested in test/integration/sharing/shareLinks.test.ts",
  "GET /share/{token}/fhir": "the same capability as the page, as a FHIR download",
};

interface McpProbe {
  tool: string;
  args: (ids: OwnedIds) => Record<string, unknown>;
  expect: "notFound" | "scoped";
}

const MCP_PROBES: McpProbe[] = [
  ...["get_health_log", "delete_health_log", "summarize_health_log"].map((tool) => ({
    tool,
    args: (i: OwnedIds) => ({ trackerId: i.trackerId }),
    expect: "notFound" as const,
  })),
  { tool: "update_health_log", args: (i) => ({ trackerId: i.trackerId, changes: { title: "B" } }), expect: "notFound" },
  {
    tool: "add_health_log_entry",
    args: (i) => ({ trackerId: i.trackerId, entry: { severity: 1 } }),
    expect: "notFound",
  },
  { tool: "export_health_log", args: (i) => ({ trackerId: i.trackerId, format: "csv" }), expect: "notFound" },
  { tool: "list_health_logs", args: (i) => ({ cursor: i.trackerCursor }), expect: "scoped" },
  { tool: "health_chat", args: (i) => ({ message: "continue", chat_id: i.chatId }), expect: "notFound" },
  { tool: "health_chat", args: (i) => ({ message: "read this", attachment_ids: [i.fileId] }), expect: "notFound" },
  { tool: "list_chats", args: (i) => ({ cursor: i.chatCursor }), expect: "scoped" },
  ...["get_chat", "delete_chat", "share_chat"].map((tool) => ({
    tool,
    args: (i: OwnedIds) => ({ chat_id: i.chatId }),
    expect: "notFound" as const,
  })),
  { tool: "update_chat", args: (i) => ({ chat_id: i.chatId, title: "B", pinned: true }), expect: "notFound" },
  { tool: "get_upload", args: (i) => ({ fileId: i.fileId }), expect: "notFound" },
  { tool: "list_lab_panels", args: (i) => ({ cursor: i.labCursor }), expect: "scoped" },
  // Not an id, but A has glucose results: B's history of it must hold none of A's panels.
  { tool: "get_lab_history", args: () => ({ name: "Glucose" }), expect: "scoped" },
];

const MCP_NOT_OWNED: Record<string, string> = {
  get_papers: "arXiv ids: a public catalog",
  get_condition: "MONDO ids: public reference terms",
  search_papers_advanced: "the `id` field of a fielded filter is an arXiv id: a public catalog",
};

interface ToolListing {
  name: string;
  inputSchema: JsonSchema;
}

async function mcp(key: string, method: string, params: Record<string, unknown>, era: Era = "2025-11-25") {
  const headers = { authorization: `Bearer ${key}` };
  const response =
    era === "2026-07-28"
      ? await modernMcpCall(app, method, params, headers)
      : await mcpCall(app, { jsonrpc: "2.0", id: 1, method, params }, headers);
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are read field by field
  return ((await response.json()) as { result: any }).result;
}

async function toolList(key: string): Promise<ToolListing[]> {
  return (await mcp(key, "tools/list", {})).tools as ToolListing[];
}

// ---------------------------------------------------------------------------------------------

describe("coverage: every id-taking route and tool has a probe", () => {
  test("every operation with a path parameter or an id-like input is probed on each, or listed as not owned", async () => {
    const required = await requiredOps(app);
    expect(required.size).toBeGreaterThan(15);
    const probes = probesFor(required);
    const missing: string[] = [];
    for (const [op, names] of required) {
      if (REST_NOT_OWNED[op]) continue;
      const covered = new Set(probes.filter((probe) => probe.op === op).flatMap((probe) => probe.covers));
      for (const name of names) if (!covered.has(name)) missing.push(`${op} (${name})`);
    }
    expect(missing).toEqual([]);
    // No stale entries: each v1 probe and exemption names an operation that still takes an id.
    for (const op of [...REST_PROBES.map((probe) => probe.op), ...Object.keys(REST_NOT_OWNED)]) {
      expect(required.has(op), `${op} is not an id-taking operation`).toBe(true);
    }
  });

  test("every MCP tool with an id-like input is probed on each such input, or listed as not owned", async () => {
    const tools = await toolList(b.apiKey);
    const missing: string[] = [];
    for (const tool of tools) {
      const names = idProperties(tool.inputSchema);
      if (names.length === 0 || MCP_NOT_OWNED[tool.name]) continue;
      const probed = MCP_PROBES.filter((probe) => probe.tool === tool.name).flatMap((probe) =>
        pathsOf(probe.args(ids)),
      );
      for (const name of names) if (!probed.includes(name)) missing.push(`${tool.name}.${name}`);
    }
    expect(missing).toEqual([]);
    const names = new Set(tools.map((tool) => tool.name));
    for (const tool of [...MCP_PROBES.map((probe) => probe.tool), ...Object.keys(MCP_NOT_OWNED)]) {
      expect(names.has(tool), `${tool} is not in tools/list`).toBe(true);
    }
  });
});

/**
 * Nothing of A appears in what B is answered: not A's profile text, and no id of A's that B did
 * not send itself (a not-found message may repeat the id it was given).
 */
function expectNothingOfA(text: string, sent: string) {
  expect(text).not.toContain(MARKER);
  const owned = [
    ids.trackerId,
    ids.otherTrackerId,
    ids.chatId,
    ids.otherChatId,
    ids.messageId,
    ids.fileId,
    ids.pendingFileId,
    ids.labPanelId,
    ids.shareLinkId,
  ];
  for (const id of owned) {
    if (!sent.includes(id)) expect(text).not.toContain(id);
  }
}

describe("account B with account A's ids", () => {
  test("every REST probe: 404 NOT_FOUND (or its documented status), nothing of A in the answer, A unchanged", async () => {
    const before = await snapshotOf(deps.sql, a.accountId);
    expect(before).toContain(MARKER);
    const outcomes: string[] = [];
    const probes = probesFor(await requiredOps(app));
    for (const probe of probes) {
      const [method, template] = probe.op.split(" ") as [string, string];
      let response: Response;
      let sent = JSON.stringify(probe.request(ids));
      if (template === "/api/v1/uploads/{fileId}/content") {
        // B's own ticket, re-aimed at A's pending upload.
        const ticket = await json<Presigned>(
          await presign(app, b.apiKey, { filename: "b.txt", contentType: "text/plain", size: 5 }),
        );
        sent = ticket.uploadUrl.replace(ticket.fileId, ids.pendingFileId);
        response = await put(app, sent, new Uint8Array(5), "text/plain");
      } else {
        const { path, body } = probe.request(ids);
        const credentials =
          probe.auth === "session"
            ? { headers: { cookie: (await bWeb()).cookie, "x-csrf-token": (await bWeb()).csrfToken } }
            : { key: b.apiKey };
        response = await call(app, path, { method, ...credentials, ...(body === undefined ? {} : { body }) });
      }
      const text = await response.clone().text();
      outcomes.push(`${probe.op} [${probe.covers}] → ${response.status}`);
      if (probe.expect === "notFound") {
        expect(response.status, `${probe.op} ${text}`).toBe(404);
        expect((await errorOf(response)).code).toBe("NOT_FOUND");
      } else if (probe.expect === "scoped") {
        expect(response.status, `${probe.op} ${text}`).toBe(200);
      } else {
        expect(response.status, `${probe.op} ${text}`).toBe(probe.expect.status);
        await errorOf(response);
      }
      expectNothingOfA(text, sent);
    }
    expect(outcomes).toHaveLength(probes.length);
    expect(await snapshotOf(deps.sql, a.accountId)).toBe(before);
  });

  test.each(ERAS)(
    "every MCP probe over %s: a not-found isError result (or a listing of B's own), A unchanged",
    async (era) => {
      const before = await snapshotOf(deps.sql, a.accountId);
      for (const probe of MCP_PROBES) {
        const result = await mcp(b.apiKey, "tools/call", { name: probe.tool, arguments: probe.args(ids) }, era);
        const text = JSON.stringify(result);
        if (probe.expect === "notFound") {
          expect(result.isError, `${probe.tool} ${text}`).toBe(true);
          expect(text).toMatch(/No (health log|chat|health chat|upload|uploaded file) with id/);
        } else {
          expect(result.isError, `${probe.tool} ${text}`).toBeFalsy();
        }
        expectNothingOfA(text, JSON.stringify(probe.args(ids)));
      }
      expect(await snapshotOf(deps.sql, a.accountId)).toBe(before);
    },
  );

  test("A still reads everything it owns (the probes did not hit A's ids by accident)", async () => {
    const key = a.apiKey;
    for (const path of [
      `/api/v1/health/trackers/${ids.trackerId}`,
      `/api/v1/health/chat/${ids.chatId}`,
      `/api/v1/uploads/${ids.fileId}`,
      `/api/v1/uploads/${ids.pendingFileId}`,
      `/api/v1/health/labs/${ids.labPanelId}`,
      `/api/v1/health/records/imports/${ids.recordImportId}`,
    ]) {
      expect((await call(app, path, { key })).status).toBe(200);
    }
    const pending = await json<{ status: string }>(await call(app, `/api/v1/uploads/${ids.pendingFileId}`, { key }));
    expect(pending.status).toBe("pending");
    expect((await call(app, `/api/v1/shared/${ids.shareToken}`)).status).toBe(200);
  });
});
