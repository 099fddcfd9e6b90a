import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { closeDeps, createDeps, type Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import type { Env } from "../../../shared/core/env";
import { startWorkers, type Workers } from "../../../workers/runner";
import {
  openaiReplayEnv,
  type ProviderName,
  type ProviderReplay,
  startProviderReplay,
} from "../../fixtures/providers/replayServer";
import { sendWithTransport } from "../../helpers/chat";
import { healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps, testLog } from "../../helpers/infra";
import { startUpstreamFixtures, type UpstreamFixtures, upstreamEnv } from "../../helpers/upstream";

/**
 * Each provider's SDK against a local server replaying that provider's streaming wire format
 * (test/fixtures/providers), through the whole pipeline: POST → queue → worker → streamText with
 * our tools → the real medication tool (against the RxNav/openFDA replay) → the answer step.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let upstream: UpstreamFixtures;
const replays = {} as Record<ProviderName, ProviderReplay>;
const keys = {} as Record<"go" | "pro", string>;

const ANSWER =
  "Aspirin (RxNorm RxCUI 1191) is labeled for pain, fever and heart protection. Its FDA label warns about stomach bleeding and Reye's syndrome in children. This is labeling reference, not medical advice.";

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  for (const name of ["openai", "anthropic", "openai-compatible"] as const) replays[name] = startProviderReplay(name);
  const base = await testDeps();
  const env: Env = {
    ...base.env,
    ...upstreamEnv(upstream),
    ...openaiReplayEnv(replays.openai),
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: replays.anthropic.baseUrl,
    ANTHROPIC_MODELS: "claude-sonnet-4-5 context=200000 input=text,image,pdf plans=pro",
    OPENAI_COMPATIBLE_BASE_URL: replays["openai-compatible"].baseUrl,
    OPENAI_COMPATIBLE_API_KEY: "local-test-key",
    OPENAI_COMPATIBLE_MODELS: "llama3.1:8b context=131072",
    CHAT_DEFAULT_MODEL: "gpt-4.1-mini, pro=claude-sonnet-4-5",
    // Queues of its own: a lookup job another file left behind cannot stand in for this file's.
    REDIS_PREFIX: `${base.env.REDIS_PREFIX}cp`,
  };
  deps = createDeps(env, { log: testLog });
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda"] });
  app = createApp(deps);
  keys.go = (await healthAccount(deps, app)).apiKey;
  keys.pro = (await healthAccount(deps, app, { plan: "pro" })).apiKey;
});

afterAll(async () => {
  await workers?.close();
  await upstream?.stop();
  for (const replay of Object.values(replays)) await replay?.stop();
  if (deps) await closeDeps(deps);
});

type Body = Record<string, unknown>;
type Items = Body[];

/** How each API carries what we send: auth, system instructions, tool definitions, the tool's result. */
const WIRE: Record<
  ProviderName,
  {
    plan: "go" | "pro";
    model: string | undefined;
    modelId: string;
    path: string;
    auth: (headers: Headers) => void;
    instructions: (body: Body) => string;
    /** Tool definitions as `<schema field>:<name>`, so the API's own field for the schema is checked too. */
    tools: (body: Body) => string[];
    toolsSent: string[];
    toolResult: (body: Body) => string;
    /** Settings we add per provider (see languageModels.ts), as they appear in the request body. */
    settings: Body;
    usage: ChatReply["usage"];
    textBeforeTool: string;
  }
> = {
  openai: {
    plan: "go",
    model: undefined,
    modelId: "gpt-4.1-mini",
    path: "/v1/responses",
    auth: (headers) => expect(headers.get("authorization")).toBe("Bearer sk-test-openai"),
    instructions: (body) => String((body.input as Items).find((item) => item.role === "system")?.content),
    tools: (body) => (body.tools as Items).map((tool) => `${tool.parameters ? "parameters" : "?"}:${tool.name}`),
    toolsSent: ["parameters:get_medication_reference", "parameters:search_papers"],
    toolResult: (body) => String((body.input as Items).find((item) => item.type === "function_call_output")?.output),
    settings: { store: false },
    usage: { inputTokens: 1873 + 2412, outputTokens: 19 + 41, totalTokens: 1892 + 2453 },
    textBeforeTool: "",
  },
  anthropic: {
    plan: "pro",
    model: "auto",
    modelId: "claude-sonnet-4-5",
    path: "/v1/messages",
    auth: (headers) => {
      expect(headers.get("x-api-key")).toBe("sk-ant-test");
      expect(headers.get("anthropic-version")).toBe("2023-06-01");
    },
    instructions: (body) => (body.system as Items).map((part) => part.text).join("\n"),
    tools: (body) => (body.tools as Items).map((tool) => `${tool.input_schema ? "input_schema" : "?"}:${tool.name}`),
    toolsSent: ["input_schema:get_medication_reference", "input_schema:search_papers"],
    toolResult: (body) =>
      JSON.stringify(
        (body.messages as Items).flatMap((m) => (m.content as Items).filter((part) => part.type === "tool_result")),
      ),
    settings: { max_tokens: 4096 },
    usage: { inputTokens: 2051 + 2698, outputTokens: 71 + 48, totalTokens: 2051 + 2698 + 71 + 48 },
    textBeforeTool: "I'll look up aspirin's RxNorm entry and FDA label.",
  },
  "openai-compatible": {
    plan: "go",
    model: "llama3.1:8b",
    modelId: "llama3.1:8b",
    path: "/v1/chat/completions",
    auth: (headers) => expect(headers.get("authorization")).toBe("Bearer local-test-key"),
    instructions: (body) => String((body.messages as Items).find((m) => m.role === "system")?.content),
    tools: (body) =>
      (body.tools as Items).map((tool) => {
        const fn = tool.function as Body;
        return `${fn.parameters ? "parameters" : "?"}:${fn.name}`;
      }),
    toolsSent: ["parameters:get_medication_reference", "parameters:search_papers"],
    toolResult: (body) => String((body.messages as Items).find((m) => m.role === "tool")?.content),
    settings: { stream_options: { include_usage: true } },
    usage: { inputTokens: 1327 + 1702, outputTokens: 22 + 38, totalTokens: 1349 + 1740 },
    textBeforeTool: "",
  },
};

const QUESTION = "What are the side effects of aspirin?";
const chat = (key: string, body: Body) => call(app, "/api/v1/health/chat", { method: "POST", key, body });

describe.each(Object.keys(WIRE) as ProviderName[])("%s through the chat pipeline", (provider) => {
  const wire = WIRE[provider];
  const body = () => ({ message: QUESTION, ...(wire.model ? { model: wire.model } : {}) });

  test("JSON reply: tool round trip, text, usage, finish reason and the routed model", async () => {
    const replay = replays[provider];
    const seen = replay.requests.length;
    const response = await chat(keys[wire.plan], body());
    expect(response.status).toBe(200);
    const reply = await json<ChatReply>(response);
    expect(reply.model).toBe(wire.modelId);
    expect(reply.finish_reason).toBe("stop");
    expect(reply.text).toBe(wire.textBeforeTool ? `${wire.textBeforeTool}\n\n${ANSWER}` : ANSWER);
    expect(reply.usage).toEqual(wire.usage);
    const tool = reply.message.parts.find((part) => part.type === "tool-get_medication_reference");
    expect(tool).toMatchObject({ state: "output-available", input: { name: "aspirin" } });
    expect(tool?.output).toMatchObject({ rxnorm: { found: true, rxcui: "1191" } });

    // What the provider received: two steps, each with our key, model, instructions and tools.
    const [first, second, ...more] = replay.requests.slice(seen);
    expect(more).toEqual([]);
    for (const request of [first, second]) {
      expect(request?.path).toBe(wire.path);
      wire.auth(request?.headers as Headers);
      expect(request?.body).toMatchObject({ stream: true, ...wire.settings });
      expect(wire.instructions(request?.body ?? {})).toContain("You are a careful health information assistant");
      expect(wire.tools(request?.body ?? {})).toEqual(expect.arrayContaining(wire.toolsSent));
    }
    expect(first?.body.model).toBe(wire.modelId);
    expect(wire.toolResult(second?.body ?? {})).toContain("1191");
  });

  test("stream: the AI SDK's transport reads the tool call, its output, the text and the finish", async () => {
    const { chunks, message, headers } = await sendWithTransport(app, keys[wire.plan], body());
    expect(headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const types: string[] = chunks.map((chunk) => chunk.type);
    const expected = ["start", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-output-available"];
    expect(types).toEqual(expect.arrayContaining([...expected, "text-start", "text-delta", "text-end"]));
    expect(types.at(-1)).toBe("finish");
    expect(chunks.at(-1)).toMatchObject({ finishReason: "stop" });
    const texts = message?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
    expect(texts?.at(-1)).toBe(ANSWER);
  });
});

describe("provider settings and failures", () => {
  test("GET /api/v1/models lists each plan's models with its default", async () => {
    const listed = async (key: string) =>
      (
        await json<{ models: { id: string; default: boolean }[] }>(
          await call(app, "/api/v1/models?surface=health", { key }),
        )
      ).models;
    expect(await listed(keys.go)).toEqual([
      expect.objectContaining({ id: "gpt-4.1-mini", provider: "openai", default: true, contextWindow: 1_047_576 }),
      expect.objectContaining({ id: "llama3.1:8b", provider: "openai-compatible", default: false }),
    ]);
    expect((await listed(keys.pro)).map((model) => [model.id, model.default])).toEqual([
      ["gpt-4.1-mini", false],
      ["claude-sonnet-4-5", true],
      ["llama3.1:8b", false],
    ]);
    const denied = await chat(keys.go, { message: QUESTION, model: "claude-sonnet-4-5" });
    expect(denied.status).toBe(403);
  });

  test("a provider refusing the key is 502 in JSON and an error chunk on a stream; the turn is stored as failed", async () => {
    replays.anthropic.reject = true;
    try {
      const response = await chat(keys.pro, { message: QUESTION });
      expect(response.status).toBe(502);
      expect((await errorOf(response)).code).toBe("ASSISTANT_FAILED");
      const { chunks, headers } = await sendWithTransport(app, keys.pro, { message: QUESTION });
      expect(chunks.map((chunk) => chunk.type)).toContain("error");
      const stored = await json<{ messages: { role: string; metadata: { finishReason?: string } }[] }>(
        await call(app, `/api/v1/health/chat/${headers.get("x-chat-id")}`, { key: keys.pro }),
      );
      expect(stored.messages.map((m) => [m.role, m.metadata.finishReason])).toEqual([
        ["user", undefined],
        ["assistant", "error"],
      ]);
    } finally {
      replays.anthropic.reject = false;
    }
  });
});
