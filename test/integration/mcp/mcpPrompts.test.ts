import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { upsertPapers } from "../../../shared/papers/repository";
import type { Paper } from "../../../shared/records/paper";
import { startWorkers, type Workers } from "../../../workers/runner";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, createTestAccount, json, type TestAccount, type TestApp } from "../../helpers/http";
import { demoPapers, ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { bearer, connectMcp, ERAS, type Era } from "../../helpers/mcpData";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";

/**
 * Prompts, completions and logging/setLevel through the official SDK client against the app on a
 * port, with the bundled MONDO slice and demo papers in this file's own indexes and RxNav/openFDA
 * replayed from recorded responses. Expected values come from the tools over the same verbs.
 */
let deps: Deps;
let app: TestApp;
let server: ReturnType<TestApp["listen"]>;
let url: URL;
let workers: Workers;
let upstream: UpstreamFixtures;
let papers: Paper[];
let patient: TestAccount;
let neighbour: TestAccount;
let client: Client;
let neighbourClient: Client;
let fluId: string;
let backId: string;
let secretId: string;

let era: Era = "2025-11-25";
const connect = (key: string) => connectMcp(url, bearer(key), "prompts-test", era);

async function saveProfile(key: string, conditions: string[], medications: string[]) {
  const saved = await call(app, "/api/v1/health/profile", {
    method: "POST",
    key,
    body: { consentGiven: true, conditions, medications },
  });
  expect(saved.status).toBe(200);
}

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = await ownIndexes(withUpstream(await testDeps(), upstream), "mcpprompts");
  // The same demo papers mcpTools writes to PostgreSQL (paper ids complete from there).
  papers = (await demoPapers()).slice(0, 50);
  await upsertPapers(deps.sql, papers);
  workers = await startWorkers(deps, { queues: ["rxnav", "openfda"] });
  app = createApp(deps);
  server = app.listen({ hostname: "127.0.0.1", port: 0 });
  url = new URL(`http://127.0.0.1:${server.server?.port}/api/mcp`);

  patient = await healthAccount(deps, app);
  await saveProfile(patient.apiKey, ["Asthma"], ["aspirin"]);
  fluId = (await createTracker(app, patient.apiKey, "Flu, November")).id;
  await addEntry(app, patient.apiKey, fluId, {
    severity: 6,
    symptoms: ["fever", "cough"],
    temperature: 38.4,
    temperatureUnit: "C",
  });
  await addEntry(app, patient.apiKey, fluId, { severity: 3, symptoms: ["cough"] });
  backId = (await createTracker(app, patient.apiKey, "Back pain", "custom")).id;
  await addEntry(app, patient.apiKey, backId, { severity: 5, note: "After lifting" });
  const panel = await call(app, "/api/v1/health/labs", {
    method: "POST",
    key: patient.apiKey,
    body: {
      collectedAt: "2026-01-10T08:00:00Z",
      results: [
        { name: "HbA1c", value: 6.6, unit: "%", referenceRange: { text: "4.0-5.6" } },
        { name: "Glucose", value: 5.0, unit: "mmol/L", referenceRange: { low: 3.9, high: 5.5 } },
      ],
    },
  });
  expect(panel.status).toBe(201);

  neighbour = await healthAccount(deps, app);
  secretId = (await createTracker(app, neighbour.apiKey, "Flu, secret")).id;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await workers?.close();
  await upstream?.stop();
});

const texts = (result: GetPromptResult) =>
  result.messages.flatMap((m) => (m.content.type === "text" ? [m.content.text] : []));
const resources = (result: GetPromptResult) =>
  result.messages.flatMap((m) => (m.content.type === "resource" ? [m.content.resource] : []));
const uris = (result: GetPromptResult) => resources(result).map((r) => r.uri);
const textOf = (contents: object | undefined) => (contents as { text: string }).text;

async function tool(name: string, args: Record<string, unknown>, on = client) {
  const result = await on.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  // biome-ignore lint/suspicious/noExplicitAny: structured results are read field by field
  return result.structuredContent as Record<string, any>;
}

describe.each(ERAS)("protocol %s", (version) => {
  beforeAll(async () => {
    era = version;
    client = await connect(patient.apiKey);
    neighbourClient = await connect(neighbour.apiKey);
  });

  afterAll(async () => {
    await client?.close();
    await neighbourClient?.close();
  });

  describe("prompts/list", () => {
    test("four prompts with titles, descriptions and their arguments", async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? "!" : "?"}`)])).toEqual([
        ["prepare_doctor_visit", ["log?"]],
        ["explain_condition", ["condition!"]],
        ["check_my_medications", ["medication?"]],
        ["literature_review", ["topic!", "from?", "to?"]],
      ]);
      for (const prompt of prompts) {
        expect(prompt.title?.length).toBeGreaterThan(5);
        expect(prompt.description?.length).toBeGreaterThan(40);
        for (const argument of prompt.arguments ?? []) expect(argument.description?.length).toBeGreaterThan(10);
      }
    });
  });

  describe("prepare_doctor_visit", () => {
    test("the caller's logs and lab panel as embedded resources, the profile, and questions from the data", async () => {
      const result = await client.getPrompt({ name: "prepare_doctor_visit", arguments: {} });
      expect(result.messages.every((m) => m.role === "user")).toBe(true);
      const [instructions] = texts(result);
      expect(instructions).toContain("My conditions: Asthma.");
      expect(instructions).toContain("My medications: aspirin.");
      const embedded = uris(result);
      expect(embedded.slice(0, 2)).toEqual([`health-log://${backId}`, `health-log://${fluId}`]);
      expect(embedded.filter((uri) => uri.startsWith("lab-panel://"))).toHaveLength(1);
      // The embedded log is what resources/read gives for its URI.
      const read = await client.readResource({ uri: `health-log://${fluId}` });
      expect(textOf(resources(result).find((r) => r.uri === `health-log://${fluId}`))).toBe(textOf(read.contents[0]));
      const questions = texts(result).at(-1) as string;
      expect(questions).toStartWith("Questions I want to ask:");
      // Symptoms by how often they were recorded, as the log's summary counts them.
      expect(questions).toContain('I have had cough, fever ("Flu, November", worst severity 6/10)');
      expect(questions).toContain("My HbA1c was 6.6 % (high; range 4.0-5.6)");
      expect(questions).not.toContain("Glucose");
      expect(questions).toContain("Should I keep taking aspirin");
      expect(JSON.stringify(result)).not.toContain("secret");
    });

    test("one log named by title (any case) or by id", async () => {
      for (const log of ["flu, NOVEMBER", fluId]) {
        const result = await client.getPrompt({ name: "prepare_doctor_visit", arguments: { log } });
        expect(uris(result).filter((uri) => uri.startsWith("health-log://"))).toEqual([`health-log://${fluId}`]);
      }
    });

    test("a log that is not the caller's, none with that title, or several: -32602 saying so", async () => {
      for (const log of [secretId, "Flu, secret", "No such log"]) {
        await expect(client.getPrompt({ name: "prepare_doctor_visit", arguments: { log } })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining("No health log with the id or title"),
        });
      }
      const twin = await createTracker(app, patient.apiKey, "Twin");
      const again = await createTracker(app, patient.apiKey, "twin");
      const error = await client
        .getPrompt({ name: "prepare_doctor_visit", arguments: { log: "TWIN" } })
        .catch((e) => e);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(twin.id);
      expect(error.message).toContain(again.id);
      for (const id of [twin.id, again.id])
        await call(app, `/api/v1/health/trackers/${id}`, { method: "DELETE", key: patient.apiKey });
    });

    test("invalid arguments: each problem named, then what the prompt takes", async () => {
      for (const args of [{ log: "" }, { log: "x".repeat(81) }, { when: "today" }] as Record<string, string>[]) {
        const error = await client.getPrompt({ name: "prepare_doctor_visit", arguments: args }).catch((e) => e);
        expect(error.code).toBe(-32602);
        expect(error.message).toContain("Invalid arguments for prepare_doctor_visit");
        expect(error.message).toContain("It takes: log.");
        expect(error.message).toContain(Object.keys(args)[0] as string);
      }
    });

    test("consent and plan, as for the health tools", async () => {
      const bare = await healthAccount(deps, app, { consent: false });
      const bareClient = await connect(bare.apiKey);
      await expect(bareClient.getPrompt({ name: "prepare_doctor_visit" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/consent/),
      });
      await bareClient.close();
      const free = await createTestAccount(deps, "free");
      const freeClient = await connect(free.apiKey);
      await expect(freeClient.getPrompt({ name: "prepare_doctor_visit" })).rejects.toMatchObject({
        code: -32602,
        data: { kind: "PLAN_REQUIRED" },
      });
      await freeClient.close();
    });
  });

  describe("explain_condition", () => {
    test("the MONDO reference and the papers that name it, as get_condition_reference finds them", async () => {
      // Of the bundled MONDO slice, Alzheimer disease is one that demo papers name.
      const reference = await tool("get_condition_reference", { q: "alzheimer disease", papers: 5 });
      const result = await client.getPrompt({
        name: "explain_condition",
        arguments: { condition: "alzheimer disease" },
      });
      const [instructions, mondo] = texts(result);
      expect(instructions).toContain(`${reference.info.label} (${reference.info.id})`);
      expect(JSON.parse((mondo as string).slice((mondo as string).indexOf("\n") + 1))).toEqual(reference.info);
      expect(uris(result)).toEqual(reference.papers.data.map((p: Paper) => `paper://${p.id}`));
      expect(uris(result).length).toBeGreaterThan(0);
      expect(JSON.parse(textOf(resources(result)[0]))).toEqual(reference.papers.data[0]);
    });

    test("a condition no paper names: said in a message", async () => {
      const reference = await tool("get_condition_reference", { q: "asthma", papers: 5 });
      expect(reference.papers.data).toEqual([]);
      const result = await client.getPrompt({ name: "explain_condition", arguments: { condition: "asthma" } });
      expect(uris(result)).toEqual([]);
      expect(texts(result).at(-1)).toBe("No paper of our index names this condition in its title or abstract.");
    });

    test("a required, well-formed condition that matches closely", async () => {
      for (const args of [{}, { condition: "a" }, { condition: "zzqx nothing like it" }] as Record<string, string>[]) {
        await expect(client.getPrompt({ name: "explain_condition", arguments: args })).rejects.toMatchObject({
          code: -32602,
        });
      }
      const missing = await client.getPrompt({ name: "explain_condition", arguments: {} }).catch((e) => e);
      expect(missing.message).toContain("Invalid arguments for explain_condition: /condition: required.");
      const unmatched = await client
        .getPrompt({ name: "explain_condition", arguments: { condition: "zzqx nothing like it" } })
        .catch((e) => e);
      expect(unmatched.message).toContain("No condition matches");
    });
  });

  describe("check_my_medications", () => {
    test("the profile's medications with their label sections, as the label tool reads them", async () => {
      const sections = await tool("get_medication_label_sections", { name: "aspirin" });
      const result = await client.getPrompt({ name: "check_my_medications", arguments: {} });
      const [instructions, label] = texts(result);
      expect(instructions).toContain("All my medications: aspirin.");
      expect(instructions).toContain("not medical advice");
      expect(texts(result)).toHaveLength(2);
      expect(label).toStartWith("## aspirin\nRxNorm: aspirin (RxCUI 1191).");
      const shown = Object.entries(sections.sections as Record<string, string>).filter(([key]) =>
        ["boxed_warning", "indications_and_usage", "warnings", "drug_interactions", "do_not_use"].includes(key),
      );
      expect(shown.length).toBeGreaterThan(0);
      for (const [key, text] of shown) expect(label).toContain(`### ${key}\n${text.slice(0, 200)}`);
    });

    test("one named medication; an unknown one says no label was found", async () => {
      const result = await client.getPrompt({ name: "check_my_medications", arguments: { medication: "zzqxmed" } });
      expect(texts(result)[1]).toBe("## zzqxmed\nNot found in RxNorm.\nNo FDA label was found.");
      expect(texts(result)[0]).toContain("Check zzqxmed against");
    });

    test("a profile without medications is told how to add them", async () => {
      await saveProfile(neighbour.apiKey, [], []);
      await expect(neighbourClient.getPrompt({ name: "check_my_medications" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("lists no medications"),
      });
    });
  });

  describe("literature_review", () => {
    test("the most relevant papers in the date range, as the fielded search finds them", async () => {
      const range = { submittedFrom: "2007-01-01", submittedTo: "2010-12-31" };
      const search = await tool("search_papers_advanced", { filters: { all: "quantum" }, ...range, limit: 10 });
      expect(search.data.length).toBeGreaterThan(0);
      const result = await client.getPrompt({
        name: "literature_review",
        arguments: { topic: "quantum", from: range.submittedFrom, to: range.submittedTo },
      });
      expect(uris(result)).toEqual(search.data.map((p: Paper) => `paper://${p.id}`));
      for (const paper of resources(result).map((r) => JSON.parse(textOf(r)) as Paper)) {
        expect(paper.submittedDate >= "2007-01-01" && paper.submittedDate < "2011-01-01").toBe(true);
      }
      expect(texts(result)[0]).toContain(`from the ${search.data.length} papers below`);
    });

    test("dates must be real days in order; the topic is required", async () => {
      for (const args of [
        { topic: "quantum", from: "2024-02-30" },
        { topic: "quantum", from: "2024-1-1" },
        { topic: "quantum", from: "2010-01-01", to: "2009-01-01" },
        { from: "2010-01-01" },
      ] as Record<string, string>[]) {
        const error = await client.getPrompt({ name: "literature_review", arguments: args }).catch((e) => e);
        expect(error.code).toBe(-32602);
        expect(error.message).toContain("literature_review");
      }
    });
  });

  describe("completion/complete", () => {
    const complete = (ref: object, name: string, value: string, on = client) =>
      on.complete({ ref: ref as never, argument: { name, value } }).then((r) => r.completion);
    const paperRef = { type: "ref/resource", uri: "paper://{arxivId}" };
    const logRef = { type: "ref/resource", uri: "health-log://{id}" };
    const prompt = (name: string) => ({ type: "ref/prompt", name });

    test("paper ids by prefix, in id order", async () => {
      const first = papers[0] as Paper;
      const prefix = first.id.slice(0, 7);
      const completion = await complete(paperRef, "arxivId", prefix);
      expect(completion.values.every((id) => id.startsWith(prefix))).toBe(true);
      expect(completion.values).toEqual(
        expect.arrayContaining(papers.filter((p) => p.id.startsWith(prefix)).map((p) => p.id)),
      );
      expect(completion.values).toEqual([...completion.values].sort());
      expect(completion).toMatchObject({ total: completion.values.length, hasMore: false });
      const broad = await complete(paperRef, "arxivId", "");
      expect(broad.values.length).toBe(Math.min(100, broad.total as number));
      expect(broad.hasMore).toBe((broad.total as number) > 100);
      expect(await complete(paperRef, "arxivId", "no such id!")).toEqual({ values: [], total: 0, hasMore: false });
    });

    test("condition names from MONDO", async () => {
      const reference = await tool("get_condition_reference", { q: "asthma", papers: 0 });
      const completion = await complete(prompt("explain_condition"), "condition", "asthm");
      expect(completion.values).toContain(reference.info.label);
      expect(completion.values.length).toBeLessThanOrEqual(100);
      expect((await complete(prompt("explain_condition"), "condition", "a")).values).toEqual([]);
    });

    test("medication names: the profile's, and those the reference cache learned from lookups", async () => {
      const mine = await complete(prompt("check_my_medications"), "medication", "ASP");
      expect(mine.values).toContain("aspirin");
      // The neighbour's profile is empty: aspirin comes from the cache the lookups above filled.
      const theirs = await complete(prompt("check_my_medications"), "medication", "aspi", neighbourClient);
      expect(theirs.values).toContain("aspirin");
      expect(theirs.values.every((name) => name.startsWith("aspi"))).toBe(true);
    });

    test("the caller's log titles and log ids, never another account's", async () => {
      expect(await complete(prompt("prepare_doctor_visit"), "log", "fl")).toEqual({
        values: ["Flu, November"],
        total: 1,
        hasMore: false,
      });
      expect((await complete(prompt("prepare_doctor_visit"), "log", "")).values).toEqual([
        "Back pain",
        "Flu, November",
      ]);
      expect((await complete(logRef, "id", "FLU")).values).toEqual([fluId]);
      expect((await complete(logRef, "id", backId.slice(0, 30))).values).toEqual([backId]);
      expect((await complete(logRef, "id", secretId.slice(0, 30))).values).toEqual([]);
      expect((await complete(prompt("prepare_doctor_visit"), "log", "flu", neighbourClient)).values).toEqual([
        "Flu, secret",
      ]);
    });

    test("arguments without a source complete to nothing; unknown references are -32602", async () => {
      expect(await complete(prompt("literature_review"), "topic", "quant")).toEqual({
        values: [],
        total: 0,
        hasMore: false,
      });
      expect((await complete({ type: "ref/resource", uri: "chat://{id}" }, "id", "0")).values).toEqual([]);
      for (const [ref, name] of [
        [prompt("no_such_prompt"), "x"],
        [prompt("explain_condition"), "disease"],
        [{ type: "ref/resource", uri: "file:///{path}" }, "path"],
        [paperRef, "id"],
      ] as const) {
        await expect(complete(ref, name, "a")).rejects.toMatchObject({ code: -32602 });
      }
      await expect(complete(paperRef, "arxivId", "1".repeat(301))).rejects.toMatchObject({ code: -32602 });
    });
  });
});

describe("logging/setLevel (2025 era only)", () => {
  beforeAll(async () => {
    era = "2025-11-25";
    client = await connect(patient.apiKey);
  });

  test("every level is acknowledged with {}", async () => {
    for (const level of ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const) {
      expect(await client.setLoggingLevel(level)).toEqual({});
    }
  });

  test("an unknown level is -32602", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${patient.apiKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "logging/setLevel", params: { level: "verbose" } }),
    });
    const body = await json<{ error: { code: number; message: string } }>(response);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain("level");
  });
});
