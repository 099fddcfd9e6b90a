import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { CONSENT_STEP, MODEL_CHOICE } from "../../../api/mcp/tools";
import type { Deps } from "../../../shared/context/deps";
import { publicUrl } from "../../../shared/core/env";
import { OFFLINE_MODEL } from "../../../shared/llm/models";
import { upsertPapers } from "../../../shared/papers/repository";
import type { Paper } from "../../../shared/records/paper";
import { startWorkers, type Workers } from "../../../workers/runner";
import { createTracker, healthAccount } from "../../helpers/health";
import { json, mcpCall, modernMcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

/**
 * What only the 2026-07-28 era has, sent as raw requests: server/discover, cache hints chosen per
 * result, the log level carried by each request, health_chat asking the user (`input_required`)
 * where the 2025 era gets a plain error, and the methods the revision removed.
 */
const HOUR = 3_600_000;
/** A model only the Pro plan has, beside the offline one every plan has (it is never run). */
const PRO_ONLY = { ...OFFLINE_MODEL, id: "frontier-test", label: "Frontier (test)", plans: ["pro"], defaultFor: [] };

let deps: Deps;
let app: TestApp;
let workers: Workers;
let patient: TestAccount;
let logId: string;
let paper: Paper;

beforeAll(async () => {
  deps = { ...(await testDeps()), models: [OFFLINE_MODEL, PRO_ONLY] as never };
  paper = (await demoPapers())[0] as Paper;
  await upsertPapers(deps.sql, [paper]);
  workers = await startWorkers(deps, { queues: ["chat"] });
  app = createApp(deps);
  patient = await healthAccount(deps, app, { plan: "go" });
  logId = (await createTracker(app, patient.apiKey, "Headache")).id;
}, 60_000);

afterAll(async () => {
  await workers?.close();
});

const key = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are read field by field
type Answer = { result?: any; error?: { code: number; message: string; data?: any } };

async function modern(method: string, params: Record<string, unknown> = {}, meta = {}, account = patient) {
  const response = await modernMcpCall(app, method, params, key(account), meta);
  return { response, body: response.headers.get("content-type")?.includes("json") ? await json<Answer>(response) : {} };
}

describe("server/discover and cache hints", () => {
  test("discover names 2026-07-28 and what the server offers; it may be cached by anyone for an hour", async () => {
    const { body } = await modern("server/discover");
    expect(body.result).toMatchObject({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      resultType: "complete",
      ttlMs: HOUR,
      cacheScope: "public",
    });
  });

  test("the lists every caller shares are public for an hour; the caller's own resources are private", async () => {
    for (const method of ["tools/list", "prompts/list", "resources/templates/list"]) {
      expect((await modern(method)).body.result, method).toMatchObject({ ttlMs: HOUR, cacheScope: "public" });
    }
    const own = (await modern("resources/list")).body.result;
    expect(own).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(own.resources.map((r: { uri: string }) => r.uri)).toContain(`health-log://${logId}`);
  });

  test("resources/read chooses per resource: a paper is public for an hour, a health log private", async () => {
    const publicPaper = (await modern("resources/read", { uri: `paper://${paper.id}` })).body.result;
    expect(publicPaper).toMatchObject({ ttlMs: HOUR, cacheScope: "public", resultType: "complete" });
    const log = (await modern("resources/read", { uri: `health-log://${logId}` })).body.result;
    expect(log).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  test("the 2025 era gets none of these fields", async () => {
    const response = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: `paper://${paper.id}` } },
      key(patient),
    );
    const { result } = await json<Answer>(response);
    expect(Object.keys(result).sort()).toEqual(["contents"]);
  });
});

describe("the log level travels with each request", () => {
  const failing = { name: "get_health_log", arguments: { trackerId: "019aa000-0000-7000-8000-000000000000" } };

  test("asking for warnings: the failure is logged on an SSE stream before the isError result", async () => {
    const { response } = await modern("tools/call", failing, { "io.modelcontextprotocol/logLevel": "warning" });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)));
    expect(events[0]).toMatchObject({ method: "notifications/message", params: { level: "warning" } });
    expect(JSON.stringify(events[0].params.data)).toContain("get_health_log");
    expect(events.at(-1)).toMatchObject({ id: 1, result: { isError: true } });
  });

  test("asking only for errors, or for nothing: a plain JSON result with no log", async () => {
    for (const meta of [{ "io.modelcontextprotocol/logLevel": "error" }, {}]) {
      const { response, body } = await modern("tools/call", failing, meta);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(body.result.isError).toBe(true);
    }
  });

  test("an unknown level is -32602", async () => {
    const { body } = await modern("tools/list", {}, { "io.modelcontextprotocol/logLevel": "verbose" });
    expect(body.error?.code).toBe(-32602);
  });
});

describe("health_chat asks instead of failing", () => {
  test("a model the plan lacks: the user picks one of the plan's models, and the retry runs with it", async () => {
    const ask = {
      name: "health_chat",
      arguments: { message: "What is a normal resting heart rate?", model: PRO_ONLY.id },
    };
    const first = (await modern("tools/call", ask)).body.result;
    expect(first.resultType).toBe("input_required");
    const question = first.inputRequests[MODEL_CHOICE];
    expect(question).toMatchObject({ method: "elicitation/create", params: { mode: "form" } });
    const offered = question.params.requestedSchema.properties.model.oneOf.map((o: { const: string }) => o.const);
    expect(offered).toEqual([OFFLINE_MODEL.id]);

    const answer = { [MODEL_CHOICE]: { action: "accept", content: { model: OFFLINE_MODEL.id } } };
    const retried = (await modern("tools/call", { ...ask, inputResponses: answer })).body.result;
    expect(retried.resultType).toBe("complete");
    expect(retried.isError).toBeFalsy();
    expect(retried.structuredContent).toMatchObject({ model: OFFLINE_MODEL.id });
  });

  test("a chosen model the plan lacks too, or a declined choice: the plain refusal", async () => {
    const ask = { name: "health_chat", arguments: { message: "Hello", model: PRO_ONLY.id } };
    for (const response of [{ action: "accept", content: { model: PRO_ONLY.id } }, { action: "decline" }]) {
      const result = (await modern("tools/call", { ...ask, inputResponses: { [MODEL_CHOICE]: response } })).body.result;
      expect(result).toMatchObject({ resultType: "complete", isError: true });
      expect(result.content[0].text).toContain("cannot use frontier-test");
    }
  });

  test("a health tool without consent: the website's consent page (URL mode); a retry without consent is the refusal", async () => {
    const bare = await healthAccount(deps, app, { consent: false, plan: "go" });
    const ask = { name: "get_lab_history", arguments: { name: "Glucose" } };
    const first = (await modern("tools/call", ask, {}, bare)).body.result;
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests[CONSENT_STEP]).toMatchObject({
      method: "elicitation/create",
      params: { mode: "url", url: `${publicUrl(deps.env)}/health` },
    });
    // The client says the user is done, but consent is read from the store, not from the answer.
    const done = { [CONSENT_STEP]: { action: "accept" } };
    const retried = (await modern("tools/call", { ...ask, inputResponses: done }, {}, bare)).body.result;
    expect(retried).toMatchObject({ resultType: "complete", isError: true });
    expect(retried.content[0].text).toMatch(/consent/i);
  });

  test("a client that cannot show the question gets the plain refusal", async () => {
    const bare = await healthAccount(deps, app, { consent: false, plan: "go" });
    const formOnly = { "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } };
    const noConsent = await modern(
      "tools/call",
      { name: "get_lab_history", arguments: { name: "Glucose" } },
      formOnly,
      bare,
    );
    expect(noConsent.body.result).toMatchObject({ resultType: "complete", isError: true });
    const none = { "io.modelcontextprotocol/clientCapabilities": {} };
    const ask = { name: "health_chat", arguments: { message: "Hello", model: PRO_ONLY.id } };
    expect((await modern("tools/call", ask, none)).body.result).toMatchObject({
      resultType: "complete",
      isError: true,
    });
  });

  test("the 2025 era gets the plain refusal at once", async () => {
    const ask = { name: "health_chat", arguments: { message: "Hello", model: PRO_ONLY.id } };
    const response = await mcpCall(app, { jsonrpc: "2.0", id: 1, method: "tools/call", params: ask }, key(patient));
    const { result } = await json<Answer>(response);
    expect(result).toMatchObject({ isError: true });
    expect(result.inputRequests).toBeUndefined();
  });

  test("malformed inputResponses are -32602, not a question asked again", async () => {
    for (const inputResponses of [{ [MODEL_CHOICE]: 5 }, null, {}]) {
      const { body } = await modern("tools/call", { name: "get_account", arguments: {}, inputResponses });
      expect(body.error?.code).toBe(-32602);
    }
  });
});

describe("methods 2026-07-28 removed", () => {
  test.each(["initialize", "ping", "logging/setLevel", "resources/subscribe"])(
    "%s → 404 with -32601",
    async (method) => {
      const { response, body } = await modern(method, method === "logging/setLevel" ? { level: "info" } : {});
      expect(response.status).toBe(404);
      expect(body.error?.code).toBe(-32601);
    },
  );
});
