import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import fc from "fast-check";
import { createApp } from "../../../api/app";
import { policyFor } from "../../../api/plugins/access";
import { createSession } from "../../../shared/auth/webSessions";
import type { Deps } from "../../../shared/context/deps";
import { PLAN_IDS, PLANS, type PlanTable } from "../../../shared/core/plans";
import { startWorkers, type Workers } from "../../../workers/runner";
import {
  describeRequest,
  FUZZ_RUNS,
  type FuzzRequest,
  type Operation,
  operationsOf,
  RAW_HTTP,
  rawExchange,
  requestArb,
  toRequest,
} from "../../helpers/fuzz";
import { checkResponse, snapshot, Tally } from "../../helpers/fuzzChecks";
import {
  contractProblem,
  DOCUMENTED_MAX_HEADERS,
  DOCUMENTED_MAX_URL,
  rawAnswerProblem,
  textualNumbers,
  unitCountedStrings,
} from "../../helpers/fuzzContract";
import {
  checkEmptyBatch,
  checkMcpResponse,
  type McpTool,
  mcpMessageArb,
  toolArgumentsArb,
} from "../../helpers/fuzzMcp";
import { emptyQueryArb, emptyQueryProblem, wrongMethodProblem, wrongMethodsOf } from "../../helpers/fuzzMethods";
import type { Hints } from "../../helpers/fuzzValues";
import { healthAccount } from "../../helpers/health";
import {
  type Call,
  call,
  errorOf,
  handleChecked,
  json,
  mcpCall,
  type TestAccount,
  type TestApp,
} from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";
import { TEST_PASSWORD, uniqueEmail, type WebUser, webCall, webUser } from "../../helpers/website";

/**
 * Issue 9, "Bad input": every operation of the app's own OpenAPI document, and the MCP endpoint,
 * fed generated bad and boundary requests (fast-check). Properties: never a 5xx; a 4xx is the
 * documented error body (validation errors with details); a rejected request changes no stored
 * row; the app still answers its health probes. `FUZZ_RUNS` scales the run (`bun run test:long`).
 */

// No hourly limit in the way: thousands of requests per account.
const UNLIMITED: PlanTable = Object.fromEntries(
  PLAN_IDS.map((id) => [id, { ...PLANS[id], requestsPerHour: 100_000_000 }]),
) as PlanTable;

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const tally = new Tally();

let upstream: UpstreamFixtures;
let deps: Deps;
let app: TestApp;
let workers: Workers;
/** Another account's rows: its ids are sent too, and must stay untouched and unreadable. */
let stranger: Seeded;
/** The caller of every GET and read-only tool (they may change nothing, so they can share it). */
let reader: Seeded;
/** The same for the website's GETs: a signed-up account with a session. */
let webReader: Seeded;

/** `GET /metrics` answers only this bearer token here (README "Metrics"), so its query is fuzzed. */
const METRICS_TOKEN = "fuzz-metrics-token";

interface Seeded {
  account: TestAccount;
  /** Real values by parameter or property name (see `Hints`): the ids this account owns. */
  hints: Hints;
  /** A website account's session (signed up, then moved to pro as an admin would); none for key accounts. */
  web?: WebUser;
}

/** Values that exist or are understood whatever the account: the demo papers, MONDO ids, upstream fixtures. */
const KNOWN: Hints = {
  "*": ["0704.0476", "0704.0476v1", "hep-th/9901001"],
  id: ["0704.0476", "MONDO:0004979"],
  ids: ["0704.0476", "2401.01234"],
  mondoid: ["MONDO:0004979", "MONDO_0005015"],
  name: ["aspirin", "ambienn", "adalimumab", "0781-1506-10"],
  q: ["quantum", "asthma", "influenza"],
  model: ["auto"],
  contenttype: ["text/plain", "application/pdf", "image/png"],
  sortby: ["relevance", "submittedDate", "lastUpdatedDate"],
  sortorder: ["ascending", "descending", "desc"],
  submittedfrom: ["1991-08-14", "2024-02-29"],
  submittedto: ["2024-02-29", "2099-12-31"],
  updatedfrom: ["2000-01-01"],
  updatedto: ["2030-01-01"],
};

/**
 * A pro account with consent, a log with an entry, a chat with a share link and a presigned upload:
 * an API-key account made through v1, or (`web`) an account signed up on the website and seeded
 * through its session and the /api/ mirrors, with an API key made on the dashboard.
 */
async function seedAccount(kind: "key" | "web" = "key"): Promise<Seeded> {
  let account: TestAccount;
  let web: WebUser | undefined;
  let send: (path: string, options: Call) => Promise<Response>;
  if (kind === "web") {
    web = await webUser(app, deps, { plan: "pro" });
    const user = web;
    send = (path, options) => webCall(app, user, path.replace("/api/v1/", "/api/"), options);
    const consent = { consentGiven: true, conditions: [], medications: [] };
    expect((await send("/api/health/profile", { method: "POST", body: consent })).status).toBe(200);
    const made = await json<{ id: string; key: string }>(await send("/api/dashboard/keys", { method: "POST" }));
    account = { accountId: web.accountId, apiKey: made.key, keyId: made.id, plan: "pro" };
  } else {
    account = await healthAccount(deps, app, { plan: "pro" });
    const key = account.apiKey;
    send = (path, options) => call(app, path, { key, ...options });
  }
  const created = await send("/api/v1/health/trackers", { method: "POST", body: { title: "Flu", kind: "acute" } });
  const tracker = await json<{ id: string }>(created);
  const entry = { severity: 3, note: "seed" };
  expect((await send(`/api/v1/health/trackers/${tracker.id}/entries`, { method: "POST", body: entry })).status).toBe(
    201,
  );
  const reply = await send("/api/v1/health/chat", { method: "POST", body: { message: "Hello" } });
  const chatId = (await json<{ chat_id: string }>(reply)).chat_id;
  const share = await send(`/api/v1/chats/${chatId}/share`, { method: "POST" });
  const { token } = await json<{ token: string }>(share);
  const upload = { scope: "health", filename: "note.txt", contentType: "text/plain", size: 5 };
  const ticket = await send("/api/v1/uploads/presign", { method: "POST", body: upload });
  const { fileId, uploadUrl } = await json<{ fileId: string; uploadUrl: string }>(ticket);
  const signed = new URL(uploadUrl).searchParams;
  return {
    account,
    ...(web ? { web } : {}),
    hints: {
      id: [account.keyId],
      // Sign-up: the account's own email (409) and unused ones (the first use of each signs up).
      ...(web ? { email: [web.email, uniqueEmail("fuzz"), uniqueEmail("fuzz")], password: [TEST_PASSWORD] } : {}),
      trackerid: [tracker.id],
      chatid: [chatId],
      token: [token],
      fileid: [fileId],
      attachmentids: [fileId],
      expires: [signed.get("expires") ?? ""],
      signature: [signed.get("signature") ?? ""],
    },
  };
}

/** The caller's own values, the stranger's (which must stay out of reach) and the known ones. */
function hintsFor(own: Seeded): Hints {
  const names = new Set([...Object.keys(own.hints), ...Object.keys(stranger.hints), ...Object.keys(KNOWN)]);
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      [...(own.hints[name] ?? []), ...(stranger.hints[name] ?? []), ...(KNOWN[name] ?? [])],
    ]),
  );
}

/**
 * The stranger's ids are sent everywhere; an accepted answer that carries one read another
 * account's data (errors may quote the id they were sent, so they are not checked). Its API key's
 * id (hint `id`) only on the dashboard: elsewhere an `id` field may echo what was sent (a search).
 */
function expectNothingOfTheStranger(text: string, described: string, dashboard = false): void {
  const names = ["trackerid", "chatid", "fileid", ...(dashboard ? ["id"] : [])];
  const ids = names.flatMap((name) => stranger.hints[name] ?? []).map(String);
  const leaked = ids.find((id) => text.includes(id));
  if (leaked) throw new Error(`an answer carries the other account's id ${leaked}\n  for ${described}`);
}

const auth = (seeded: Seeded) => ({ authorization: `Bearer ${seeded.account.apiKey}` });

/**
 * A generated request with the credentials its operation needs, so the input gets past them: the
 * API key; on a website path the session cookie (ahead of any generated cookie) and, on a write,
 * the CSRF header; on /metrics the metrics token. Sign-up and sign-in need none.
 */
function withCredentials(operation: Operation, sent: FuzzRequest, own: Seeded, session?: WebUser): Request {
  const policy = policyFor(operation.method, operation.path.replace(/\{[^}]+\}/g, "x"));
  if (operation.path === "/metrics") return toRequest(sent, METRICS_TOKEN);
  if (policy?.auth !== "session") return toRequest(sent, own.account.apiKey);
  if (policy.anonymous) return toRequest(sent);
  const user = session ?? own.web;
  if (!user) throw new Error(`${operation.path} needs a website account`);
  const noise = sent.headers.cookie;
  const headers = { ...sent.headers, cookie: noise ? `${user.cookie}; ${noise}` : user.cookie };
  return toRequest({ ...sent, headers: { ...headers, "x-csrf-token": user.csrfToken } });
}

/** Whether an answer got past authentication (a session path's 401 or CSRF 403 did not). */
function pastAuth(operation: Operation, status: number, text: string): boolean {
  if (policyFor(operation.method, operation.path.replace(/\{[^}]+\}/g, "x"))?.anonymous) return true;
  if (status !== 401 && status !== 403) return true;
  return !/"code":"(UNAUTHORIZED|CSRF_FAILED)"/.test(text);
}

/** Sign-out ends the session it is sent with: each of its requests gets a fresh one of its own. */
async function freshSession(own: Seeded): Promise<WebUser | undefined> {
  if (!own.web) return undefined;
  const issued = await createSession(deps, own.web.accountId);
  return { ...own.web, cookie: `sid=${issued.token}`, csrfToken: issued.csrfToken };
}

async function expectAlive(): Promise<void> {
  expect((await call(app, "/healthz")).status).toBe(200);
  expect((await call(app, "/readyz")).status).toBe(200);
}

/**
 * Medication look-ups go through queues held to RxNav's and openFDA's published limits (3 a second,
 * 80 a minute: `QUEUE_LIMITERS`). More distinct names than that wait past REFERENCE_WAIT_MS and get
 * the documented 502 "retry later" whatever the input (the long run's 440th request did), so these
 * operations get at most 40 requests (each tool too).
 */
const UPSTREAM_BOUND = /medication/;
const UPSTREAM_BOUND_RUNS = 40;

/**
 * Runs `runs` generated inputs through `send`. A writer's rows are compared after each request: a
 * rejected one must leave them as they were (an accepted one sets the new baseline). A reader
 * (GET, read-only tool) may not change anything at all, so its rows are compared once, after all.
 */
async function fuzz<T>(
  name: string,
  target: { accounts: string[]; writes: boolean },
  input: fc.Arbitrary<T>,
  send: (value: T) => Promise<{ rejected: boolean; describe: string; pastAuth?: boolean }>,
  runs = FUZZ_RUNS,
): Promise<void> {
  const numRuns = UPSTREAM_BOUND.test(name) ? Math.min(runs, UPSTREAM_BOUND_RUNS) : runs;
  const before = await snapshot(deps.sql, target.accounts);
  let baseline = before;
  await fc.assert(
    fc.asyncProperty(input, async (value) => {
      const outcome = await send(value);
      tally.count(name, outcome.rejected, outcome.pastAuth ?? true);
      if (!target.writes) return;
      const after = await snapshot(deps.sql, target.accounts);
      if (outcome.rejected && after !== baseline) {
        throw new Error(`a rejected request changed stored data: ${outcome.describe}`);
      }
      baseline = after;
    }),
    { numRuns, ...(seed === undefined ? {} : { seed }) },
  );
  if (!target.writes) expect(await snapshot(deps.sql, target.accounts)).toBe(before);
}

const document = await (async () => {
  deps = await testDeps({ plans: UNLIMITED });
  const response = await createApp(deps).handle(new Request("http://localhost/openapi.json"));
  return (await response.json()) as Parameters<typeof operationsOf>[0];
})();
const operations: Operation[] = operationsOf(document);

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  // Own search indexes with their settings and the demo papers (MONDO's would take 20 s to load).
  deps = await ownIndexes(withUpstream(await testDeps({ plans: UNLIMITED }), upstream), "fuzz", {
    conditions: false,
  });
  // Valid chat turns (the generator makes some) and medication look-ups finish like in production.
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda"] });
  app = createApp({ ...deps, env: { ...deps.env, METRICS_TOKEN } });
  stranger = await seedAccount();
  reader = await seedAccount();
  webReader = await seedAccount("web");
}, 60_000);

afterAll(async () => {
  if (tally.rows.size > 0)
    console.log(`\nFuzz: requests tried per operation (FUZZ_RUNS=${FUZZ_RUNS})\n${tally.table()}`);
  await workers?.close();
  await upstream?.stop();
});

describe("every operation of the OpenAPI document, fed bad and boundary requests", () => {
  test("the document lists the operations this suite expects to cover", () => {
    expect(operations.length).toBeGreaterThanOrEqual(39);
    expect(operations.map((operation) => `${operation.method} ${operation.path}`)).toContain("POST /api/mcp");
  });

  for (const operation of operations) {
    const name = `${operation.method} ${operation.path}`;
    const writes = operation.method !== "GET";
    const website = policyFor(operation.method, operation.path.replace(/\{[^}]+\}/g, "x"))?.auth === "session";
    const signout = operation.path === "/api/auth/signout";
    test(name, async () => {
      // A writer gets its own account (a valid DELETE may remove what the next operation needs).
      const own = writes ? await seedAccount(website ? "web" : "key") : website ? webReader : reader;
      const target = { accounts: [own.account.accountId, stranger.account.accountId], writes };
      await fuzz(name, target, requestArb(operation, hintsFor(own)), async (sent) => {
        const session = signout ? await freshSession(own) : undefined;
        const response = await handleChecked(app, withCredentials(operation, sent, own, session));
        const status = response.status;
        const { rejected, text } =
          operation.path === "/api/mcp"
            ? await checkMcpResponse(response, describeRequest(sent))
            : { rejected: response.status >= 400, text: await checkResponse(response, sent) };
        const problem = contractProblem(operation, sent, status, text);
        if (problem) throw new Error(`${problem}: ${text.slice(0, 200)}\n  for ${describeRequest(sent)}`);
        // Share links are public by design: a stranger's shared chat is readable through its token.
        if (!rejected && !operation.path.startsWith("/api/v1/shared/")) {
          expectNothingOfTheStranger(text, describeRequest(sent), operation.path.startsWith("/api/dashboard/"));
        }
        return { rejected, describe: describeRequest(sent), pastAuth: pastAuth(operation, status, text) };
      });
      // The run's own session outlives every operation (sign-out was sent fresh ones).
      if (own.web) expect((await webCall(app, own.web, "/api/auth/session")).status).toBe(200);
      await expectAlive();
    });
  }
});

describe("known paths, sent methods they lack and empty optional query parameters", () => {
  test("every method no operation of a path lists → 405 with its methods as Allow; 401 first without a credential", async () => {
    const cases = wrongMethodsOf(operations);
    expect(cases.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const wrong of cases) {
      const documented = operations.find(({ path }) => path === wrong.template) as Operation;
      const operation = { ...documented, method: wrong.method };
      const own = policyFor(wrong.method, wrong.path)?.auth === "session" ? webReader : reader;
      const sent: FuzzRequest = { method: wrong.method, target: wrong.path, headers: {} };
      for (const credentialed of [false, true]) {
        const response = await handleChecked(
          app,
          credentialed ? withCredentials(operation, sent, own) : toRequest(sent),
        );
        const problem = wrongMethodProblem(wrong, credentialed, response, await checkResponse(response, sent));
        tally.count("wrong methods on known paths", true, credentialed);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    await expectAlive();
  });

  for (const operation of operations.filter((candidate) => candidate.method === "GET")) {
    if (operation.query.every((parameter) => parameter.required)) continue;
    test(`GET ${operation.path}: an empty optional parameter is left out (no 400 for it, never a 5xx)`, async () => {
      const own = policyFor("GET", operation.path.replace(/\{[^}]+\}/g, "x"))?.auth === "session" ? webReader : reader;
      const target = { accounts: [own.account.accountId, stranger.account.accountId], writes: false };
      const answer = async (sent: FuzzRequest) => {
        const response = await handleChecked(app, withCredentials(operation, sent, own));
        return { status: response.status, text: await checkResponse(response, sent) };
      };
      const runs = Math.max(5, Math.ceil(FUZZ_RUNS / 4));
      await fuzz(
        `empty query ${operation.path}`,
        target,
        emptyQueryArb(operation, hintsFor(own)),
        async (pair) => {
          const [without, withEmpty] = [await answer(pair.without), await answer(pair.withEmpty)];
          const problem = emptyQueryProblem(pair, without, withEmpty);
          if (problem) throw new Error(`${problem}\n  for ${describeRequest(pair.withEmpty)}`);
          return { rejected: withEmpty.status >= 400, describe: describeRequest(pair.withEmpty) };
        },
        runs,
      );
      await expectAlive();
    });
  }
});

describe("the MCP endpoint, fed bad JSON-RPC and bad tool arguments", () => {
  let tools: McpTool[];

  beforeAll(async () => {
    const listed = await mcpCall(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth(reader));
    tools = (await json<{ result: { tools: McpTool[] } }>(listed)).result.tools;
  });

  test("malformed JSON-RPC, batches, unknown methods and tools, odd headers", async () => {
    const own = await seedAccount();
    const target = { accounts: [own.account.accountId, stranger.account.accountId], writes: true };
    await fuzz("MCP protocol", target, mcpMessageArb(tools.map((tool) => tool.name)), async (sent) => {
      const response = await handleChecked(app, toRequest(sent, own.account.apiKey));
      const status = response.status;
      const outcome = await checkMcpResponse(response, describeRequest(sent));
      checkEmptyBatch(sent, status, outcome.text, describeRequest(sent));
      return { rejected: outcome.rejected, describe: describeRequest(sent) };
    });
    await expectAlive();
  });

  test("the catalog has the 36 tools", () => {
    expect(tools.map((tool) => tool.name)).toHaveLength(36);
  });

  test("every tool, called with generated and huge arguments", async () => {
    for (const tool of tools) {
      const writes = tool.annotations?.readOnlyHint !== true;
      const own = writes ? await seedAccount() : reader;
      const target = { accounts: [own.account.accountId, stranger.account.accountId], writes };
      const runs = Math.max(1, Math.ceil(FUZZ_RUNS / 4));
      await fuzz(
        `MCP tools/call ${tool.name}`,
        target,
        toolArgumentsArb(tool, hintsFor(own)),
        async (args) => {
          const message = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: tool.name, arguments: args } };
          const response = await mcpCall(app, message, auth(own));
          const described = `${tool.name} ${JSON.stringify(args)?.slice(0, 200)}`;
          const { rejected, text } = await checkMcpResponse(response, described);
          if (!rejected) expectNothingOfTheStranger(text, described);
          return { rejected, describe: described };
        },
        runs,
      );
    }
    await expectAlive();
  });
});

describe("the server on a real port, fed broken HTTP", () => {
  test("malformed request lines, headers and framing: no 500–504, and /healthz answers after each", async () => {
    const server = app.listen({ hostname: "127.0.0.1", port: 0 });
    const port = server.server?.port as number;
    try {
      await fc.assert(
        fc.asyncProperty(RAW_HTTP, async (bytes) => {
          const answer = await rawExchange(port, bytes);
          tally.count("raw HTTP over TCP", !answer.startsWith("HTTP/1.1 2"));
          // Bun's own parser answers these (400, 431, and 505 for an unknown HTTP version, which is right).
          expect(answer).not.toMatch(/^HTTP\/1\.1 50[0-4]/);
          expect(rawAnswerProblem(bytes, answer)).toBeUndefined();
          expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        }),
        { numRuns: FUZZ_RUNS, ...(seed === undefined ? {} : { seed }) },
      );
    } finally {
      await server.stop(true);
    }
  });
});

describe("inputs the fuzzer found (each was a 5xx, a slow 500 or a useless detail)", () => {
  const send = (path: string, options: Parameters<typeof call>[2] = {}) =>
    call(app, path, { key: reader.account.apiKey, ...options });

  test("a body nested 100,000 levels deep → 400 naming the nesting (was 6 s and a 500)", async () => {
    const rawBody = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const response = await send("/api/v1/health/trackers", {
      method: "POST",
      rawBody,
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.details).toEqual([{ in: "body", path: "/", message: "The body nests deeper than 32 levels." }]);
  });

  test("NUL and lone surrogates in text → 400 pointing at the field (NUL was 503 'PostgreSQL is unavailable')", async () => {
    const before = await snapshot(deps.sql, [reader.account.accountId]);
    for (const title of ["a\u0000b", "x\ud800y"]) {
      const response = await send("/api/v1/health/trackers", { method: "POST", body: { title, kind: "acute" } });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).details).toEqual([
        { in: "body", path: "/title", message: expect.stringContaining("Text") },
      ]);
    }
    const query = await send("/api/v1/health/conditions/search?q=ab%00");
    expect((await errorOf(query)).details).toEqual([{ in: "query", path: "/q", message: expect.any(String) }]);
    expect(await snapshot(deps.sql, [reader.account.accountId])).toBe(before);
  });

  test("a malformed escape in a paper id → 400 (was a 500 from decodeURIComponent)", async () => {
    const response = await send("/api/v1/papers/%zz");
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details).toEqual([{ in: "params", path: "/*", message: expect.any(String) }]);
  });

  test("an out-of-range query integer names its parameter (was in: property, path: /)", async () => {
    const response = await send("/api/v1/health/trackers?limit=0");
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details).toEqual([
      { in: "query", path: "/limit", message: expect.stringContaining("greater or equal to 1") },
    ]);
  });

  test("a 300,000-character property name or a long id is quoted back clipped (was a 600 KB error body)", async () => {
    const name = "k".repeat(300_000);
    const body = { title: "Flu", kind: "acute", [name]: 1 };
    const unknown = await send("/api/v1/health/trackers", { method: "POST", body });
    const text = await unknown.text();
    expect(text.length).toBeLessThan(2_000);
    const [detail] = (JSON.parse(text) as { error: { details: { path: string }[] } }).error.details;
    expect(detail?.path).toStartWith("/kkk");
    expect(detail?.path).toEndWith("…");
    // An id as long as a URL may be (a longer URL is 414 before anything reads it).
    const id = await send(`/api/v1/health/trackers/${"t".repeat(8_000)}`);
    expect(id.status).toBe(404);
    expect((await id.text()).length).toBeLessThan(1_000);
  });

  test("MCP: an empty batch [] → one JSON-RPC error -32600 with id null, HTTP 400 (was 202)", async () => {
    const response = await mcpCall(app, [], auth(reader));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: expect.stringContaining("empty JSON-RPC batch") },
      id: null,
    });
    // The SDK's v2 handler refuses the empty batch before it reads Accept; other bodies get the 406.
    const notAcceptable = await mcpCall(app, [], { ...auth(reader), accept: "application/json" });
    expect(notAcceptable.status).toBe(400);
    const single = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect((await mcpCall(app, single, { ...auth(reader), accept: "application/json" })).status).toBe(406);
    // A batch with messages is still answered (the SDK unwraps a batch of one into a single response).
    const pings = [1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "ping" }));
    const batch = await mcpCall(app, pings, auth(reader));
    expect(await batch.json()).toEqual(pings.map(({ id }) => ({ jsonrpc: "2.0", id, result: {} })));
  });

  test("MCP: malformed params → -32602 (tools/call and initialize were -32603); NUL in arguments → isError", async () => {
    const badParams = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_account", arguments: "" } },
      auth(reader),
    );
    expect((await json<{ error: { code: number } }>(badParams)).error.code).toBe(-32602);
    const badVersion = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 5, capabilities: {} } },
      auth(reader),
    );
    expect((await json<{ error: { code: number } }>(badVersion)).error.code).toBe(-32602);
    const listWithoutParams = await mcpCall(app, { jsonrpc: "2.0", id: 1, method: "tools/list" }, auth(reader));
    expect((await json<{ result: { tools: unknown[] } }>(listWithoutParams)).result.tools).toHaveLength(36);
    const nul = await mcpCall(
      app,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_health_log", arguments: { title: "a\u0000b", kind: "acute" } },
      },
      auth(reader),
    );
    const { result } = await json<{ result: { isError: boolean; content: { text: string }[] } }>(nul);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain("/title: Text may not contain the NUL character");
  });
});

describe("the contract fuzzer's findings (each a 500, an undocumented answer, or input the document forbids)", () => {
  const send = (path: string, options: Parameters<typeof call>[2] = {}) =>
    call(app, path, { key: reader.account.apiKey, ...options });
  const emoji = (count: number) => "😀".repeat(count);
  const tool = async (name: string, args: unknown) => {
    const message = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name, arguments: args } };
    const response = await mcpCall(app, message, auth(reader));
    const { text } = await checkMcpResponse(response, `${name} ${JSON.stringify(args).slice(0, 80)}`);
    return (JSON.parse(text) as { result: { isError?: boolean; content: { text: string }[] } }).result;
  };
  /** The JSON-body operations the service validates itself (MCP and the OAuth server read their own). */
  const jsonBodies = () =>
    operations.filter(
      (operation) =>
        operation.body?.["application/json"] && operation.path !== "/api/mcp" && !operation.path.startsWith("/oauth/"),
    );
  /** A request to an operation with the caller's credentials; path parameters are real ids or `x`. */
  const sendTo = (operation: Operation, body: string, contentType = "application/json") => {
    const own = operation.path.startsWith("/api/v1/") ? reader : webReader;
    const hints = hintsFor(own);
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      String(hints[name.toLowerCase()]?.[0] ?? "x"),
    );
    const sent: FuzzRequest = {
      method: operation.method,
      target: path,
      headers: { "content-type": contentType },
      body,
    };
    return handleChecked(app, withCredentials(operation, sent, own));
  };

  test("a medication name within 120 code points is looked up like any other (61–120 emoji were 500, and -32603 over MCP)", async () => {
    const lookup = (name: string) => send(`/api/v1/health/medication?name=${encodeURIComponent(name)}`);
    const baseline = (await lookup(emoji(60))).status;
    expect(baseline).toBeLessThan(500);
    for (const name of [emoji(61), emoji(120), "药".repeat(120)]) expect((await lookup(name)).status).toBe(baseline);
    const over = await lookup(emoji(121));
    expect(over.status).toBe(400);
    expect((await errorOf(over)).details).toEqual([{ in: "query", path: "/name", message: expect.any(String) }]);
    // The same names over MCP (answered from the cache the REST lookups filled): never -32603.
    for (const name of ["get_medication_reference", "get_medication_ndcs"]) {
      for (const value of [emoji(61), emoji(120)]) expect((await tool(name, { name: value })).isError).toBeFalsy();
      expect((await tool(name, { name: emoji(121) })).isError).toBe(true);
    }
  });

  test("a condition name needs 2 characters once trimmed, counted in code points (one emoji passed)", async () => {
    const response = await send(`/api/v1/health/conditions/search?q=${encodeURIComponent(" 😀 ")}`);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details).toEqual([
      { in: "query", path: "/q", message: "Expected at least 2 non-blank characters" },
    ]);
    // The tool's schema says the same with a pattern (two non-blank characters at its ends).
    const result = await tool("search_conditions", { q: " 😀 " });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain("/q: ");
  });

  test("every string bound of an input counts code points: routes, MCP tools and job payloads", async () => {
    const { TOOLS } = await import("../../../shared/toolCatalog");
    const { JOBS } = await import("../../../shared/jobs/catalog");
    const found: string[] = [];
    for (const route of app.routes) {
      const hooks = route.hooks as unknown as Record<string, TSchema | undefined>;
      for (const part of ["body", "query", "params", "headers"]) {
        found.push(...unitCountedStrings(`${route.method} ${route.path} ${part}`, hooks[part]));
      }
    }
    for (const each of TOOLS) found.push(...unitCountedStrings(`tool ${each.name}`, each.input));
    for (const [name, job] of Object.entries(JOBS)) found.push(...unitCountedStrings(`job ${name}`, job.payload));
    expect(found).toEqual([]);
  });

  test("a form post, or JSON sent as text/plain, to a JSON route → 415 naming the accepted type; a route without a body takes none", async () => {
    const before = await snapshot(deps.sql, [reader.account.accountId, webReader.account.accountId]);
    const form = new URLSearchParams({ title: "Flu", kind: "acute" }).toString();
    const asForm = { "content-type": "application/x-www-form-urlencoded" };
    const refusals = [
      await send("/api/v1/health/trackers", { method: "POST", headers: asForm, rawBody: form }),
      await send("/api/v1/health/trackers", {
        method: "POST",
        headers: { "content-type": "text/plain" },
        rawBody: JSON.stringify({ title: "Flu", kind: "acute" }),
      }),
      // The website's mirror, with the session and its CSRF token: a browser form would carry neither header.
      await webCall(app, webReader.web as WebUser, "/api/health/trackers", {
        method: "POST",
        headers: asForm,
        rawBody: form,
      }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(415);
      expect((await errorOf(response)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(response.headers.get("accept")).toBe("application/json");
    }
    const chatId = String(reader.hints.chatid?.[0]);
    const stray = await send(`/api/v1/chats/${chatId}/share`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      rawBody: "x",
    });
    expect(stray.status).toBe(415);
    expect((await errorOf(stray)).message).toContain("no request body");
    expect(await snapshot(deps.sql, [reader.account.accountId, webReader.account.accountId])).toBe(before);
  });

  test("JSON bodies are not coerced: a number or boolean sent as text is refused naming it, on every JSON body", async () => {
    const papers = await send("/api/v1/papers/search", {
      method: "POST",
      body: { searchFilterString: { all: "quantum" }, limit: "1" },
    });
    expect(papers.status).toBe(400);
    const problems: string[] = [];
    let tried = 0;
    for (const operation of jsonBodies()) {
      for (const { pointer, body } of textualNumbers(operation.body?.["application/json"] ?? {})) {
        tried += 1;
        const response = await sendTo(operation, JSON.stringify(body));
        const text = await response.text();
        const named = response.status === 400 && text.includes(`"path":"${pointer}"`);
        if (!named)
          problems.push(`${operation.method} ${operation.path} ${pointer}: ${response.status} ${text.slice(0, 200)}`);
      }
    }
    expect(tried).toBeGreaterThan(10);
    expect(problems).toEqual([]);
    // Query strings are text: a number there is still read from it.
    expect((await send("/api/v1/papers/search?q=quantum&limit=1")).status).toBe(200);
  });

  test("__proto__ and constructor keys are refused with 400 naming them, on every body and in MCP arguments", async () => {
    const problems: string[] = [];
    const messages = new Set<string>();
    for (const key of ["__proto__", "constructor"]) {
      for (const operation of jsonBodies()) {
        for (const [body, pointer] of [
          [`{"${key}": {"admin": true}}`, `/${key}`],
          [`{"x": [{"${key}": 1}]}`, `/x/0/${key}`],
        ] as const) {
          const response = await sendTo(operation, body);
          const text = await response.text();
          const details = response.status === 400 ? JSON.parse(text).error.details : undefined;
          const [detail] = details ?? [];
          if (details?.length === 1 && detail.in === "body" && detail.path === pointer) {
            messages.add(detail.message.replace(key, "KEY"));
          } else
            problems.push(`${operation.method} ${operation.path} ${body}: ${response.status} ${text.slice(0, 200)}`);
        }
      }
      for (const each of ["create_health_log", "search_papers", "get_account", "save_health_profile"]) {
        const result = await tool(each, JSON.parse(`{"${key}": {"admin": true}}`));
        if (!result.isError || !result.content[0]?.text.includes(`/${key}: `)) {
          problems.push(`tool ${each} ${key}: ${JSON.stringify(result).slice(0, 200)}`);
        }
      }
    }
    // A prompt's arguments too (a JSON-RPC error there, as for any bad prompt argument).
    const listed = await mcpCall(app, { jsonrpc: "2.0", id: 1, method: "prompts/list" }, auth(reader));
    const [prompt] = (await json<{ result: { prompts: { name: string }[] } }>(listed)).result.prompts;
    const params = { name: prompt?.name, arguments: JSON.parse('{"__proto__": "x"}') };
    const got = await mcpCall(app, { jsonrpc: "2.0", id: 2, method: "prompts/get", params }, auth(reader));
    const { error } = await json<{ error: { code: number; message: string } }>(got);
    expect([error.code, error.message]).toEqual([-32602, expect.stringContaining("/__proto__: The property name")]);
    expect(problems).toEqual([]);
    // One behaviour: the same message everywhere.
    expect([...messages]).toHaveLength(1);
  });

  test("a method a public path lacks → 405 with Allow to anyone, key or none (was 401)", async () => {
    const token = String(reader.hints.token?.[0]);
    const fileId = String(reader.hints.fileid?.[0]);
    const expected: Record<string, string> = {
      [`DELETE /api/v1/shared/${token}`]: "GET, HEAD, OPTIONS",
      [`PUT /api/v1/shared/${token}`]: "GET, HEAD, OPTIONS",
      [`GET /api/v1/uploads/${fileId}/content`]: "PUT, OPTIONS",
      [`POST /api/v1/uploads/${fileId}/content`]: "PUT, OPTIONS",
      "GET /api/auth/signin": "POST, OPTIONS",
      "DELETE /api/auth/signup": "POST, OPTIONS",
    };
    for (const [line, allow] of Object.entries(expected)) {
      const [method, path = ""] = line.split(" ");
      for (const key of [undefined, reader.account.apiKey]) {
        const response = await call(app, path, { method, ...(key ? { key } : {}) });
        expect([line, response.status, response.headers.get("allow"), (await errorOf(response)).code]).toEqual([
          line,
          405,
          allow,
          "METHOD_NOT_ALLOWED",
        ]);
      }
    }
    // The methods they have still answer without a key.
    expect((await call(app, `/api/v1/shared/${token}`)).status).toBe(200);
    expect((await call(app, `/api/v1/shared/${token}`, { method: "HEAD" })).status).toBe(200);
  });

  test("a URL over 8,192 characters → 414, a header block over 16 KiB → 431, both with the error body, before the key", async () => {
    const padded = (length: number) => `/healthz?pad=${"a".repeat(length - "/healthz?pad=".length)}`;
    expect((await call(app, padded(DOCUMENTED_MAX_URL))).status).toBe(200);
    for (const key of [undefined, reader.account.apiKey]) {
      const long = await call(app, padded(DOCUMENTED_MAX_URL + 1), key ? { key } : {});
      expect(long.status).toBe(414);
      // After CORS, so a page on another origin can read why.
      expect(long.headers.get("access-control-allow-origin")).toBe("*");
      expect((await errorOf(long)).code).toBe("URI_TOO_LONG");
      const search = await call(app, `/api/v1/papers/search?q=${"q".repeat(20_000)}`, key ? { key } : {});
      expect([search.status, (await errorOf(search)).code]).toEqual([414, "URI_TOO_LONG"]);
    }
    expect((await call(app, "/healthz", { headers: { "x-pad": "a".repeat(8_000) } })).status).toBe(200);
    const headers = await call(app, "/api/v1/account", { headers: { "x-pad": "a".repeat(DOCUMENTED_MAX_HEADERS) } });
    expect([headers.status, (await errorOf(headers)).code]).toEqual([431, "HEADERS_TOO_LARGE"]);
  });

  test("over a real socket too: a 100 KB query gets 414 with the error body, not Bun's bare 431", async () => {
    const server = app.listen({ hostname: "127.0.0.1", port: 0 });
    const port = server.server?.port as number;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/papers/search?q=${"q".repeat(100_000)}`);
      expect(response.status).toBe(414);
      expect((await errorOf(response)).code).toBe("URI_TOO_LONG");
      const headers = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { "x-pad": "a".repeat(100_000) } });
      expect([headers.status, (await errorOf(headers)).code]).toEqual([431, "HEADERS_TOO_LARGE"]);
      // Past Bun's own limit (256 KiB of request line and headers) Bun answers before any of our code.
      const raw = await rawExchange(
        port,
        new TextEncoder().encode(`GET /healthz?q=${"q".repeat(300_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      expect(raw).toStartWith("HTTP/1.1 431");
    } finally {
      await server.stop(true);
    }
  });
});
