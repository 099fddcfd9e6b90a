import { describe, expect, test } from "bun:test";
import { parseEnv } from "../../shared/core/env";
import { AppError } from "../../shared/core/errors";
import { DEFAULT_CATALOG, type ModelEntry, modelCatalog, RESERVED_TOKENS, routeModel } from "../../shared/llm/models";

const model = (id: string, fields: Partial<ModelEntry>): ModelEntry => ({
  id,
  label: id,
  provider: "openai",
  providerModel: id,
  contextWindow: 128_000,
  inputModalities: ["text"],
  plans: ["go", "plus", "pro"],
  defaultFor: [],
  ...fields,
});

/** A text-only default, a reader of images and PDFs, a long-context model, and a pro-only model. */
const CATALOG = [
  model("small", { contextWindow: 32_000, defaultFor: ["go", "plus"] }),
  model("vision", { inputModalities: ["text", "image", "pdf"], contextWindow: 128_000 }),
  model("long", { inputModalities: ["text", "pdf"], contextWindow: 1_000_000 }),
  model("pro-only", { plans: ["pro"], defaultFor: ["pro"], contextWindow: 200_000 }),
];

const route = (
  plan: "go" | "plus" | "pro",
  requested: string,
  contextTokens = 100,
  modalities: ("image" | "pdf")[] = [],
) => routeModel(CATALOG, plan, requested, { contextTokens, modalities }).id;

function failure(run: () => unknown): { kind: string; status: number } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, status: error.status };
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("auto routing", () => {
  test("plain text goes to the plan's default", () => {
    expect(route("go", "auto")).toBe("small");
    expect(route("pro", "auto")).toBe("pro-only");
  });

  test("images or PDFs go to the first model in catalog order that reads them", () => {
    expect(route("go", "auto", 100, ["image"])).toBe("vision");
    expect(route("go", "auto", 100, ["pdf"])).toBe("vision");
    expect(route("go", "auto", 100, ["image", "pdf"])).toBe("vision");
  });

  test("a context too long for that model goes to the largest window", () => {
    expect(route("go", "auto", 40_000)).toBe("long");
    expect(route("go", "auto", 200_000, ["pdf"])).toBe("long");
    expect(route("go", "auto", 1_000_000 - RESERVED_TOKENS)).toBe("long");
  });

  test("nothing fits → 413; nothing reads the attachment → 403", () => {
    expect(failure(() => route("go", "auto", 1_000_000))).toEqual({ kind: "CONTEXT_TOO_LARGE", status: 413 });
    const textOnly = [model("a", { defaultFor: ["go"] })];
    const images = () => routeModel(textOnly, "go", "auto", { contextTokens: 1, modalities: ["image"] });
    expect(failure(images)).toEqual({ kind: "MODEL_NOT_AVAILABLE", status: 403 });
  });

  test("a plan with no model at all → 403, not a crash", () => {
    const proOnly = [model("a", { plans: ["pro"], defaultFor: ["pro"] })];
    const run = () => routeModel(proOnly, "go", "auto", { contextTokens: 1, modalities: [] });
    expect(failure(run)).toEqual({ kind: "MODEL_NOT_AVAILABLE", status: 403 });
  });
});

describe("explicit models", () => {
  test("an entitled id is used as asked, even when another would be cheaper", () => {
    expect(route("go", "long")).toBe("long");
  });

  test("unknown → 400; not entitled → 403; too long for it → 413", () => {
    expect(failure(() => route("go", "gpt-99"))).toEqual({ kind: "VALIDATION_FAILED", status: 400 });
    expect(failure(() => route("go", "pro-only"))).toEqual({ kind: "MODEL_NOT_AVAILABLE", status: 403 });
    expect(failure(() => route("go", "small", 30_000))).toEqual({ kind: "CONTEXT_TOO_LARGE", status: 413 });
  });
});

describe("the catalog from the environment", () => {
  test("no provider configured → exactly the offline model", () => {
    expect(modelCatalog(parseEnv({}))).toBe(DEFAULT_CATALOG);
    expect(modelCatalog(parseEnv({ OPENAI_API_KEY: "sk-only-a-key" }))).toBe(DEFAULT_CATALOG);
    expect(modelCatalog(parseEnv({ CHAT_DEFAULT_MODEL: "offline-reference" }))).toBe(DEFAULT_CATALOG);
  });

  test("entries with options, defaults per provider, names with colons and slashes", () => {
    const catalog = modelCatalog(
      parseEnv({
        OPENAI_API_KEY: "k",
        OPENAI_MODELS: "gpt-4.1-mini context=1047576 input=pdf,image; gpt-4.1 plans=plus,pro",
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_MODELS: "claude-sonnet-4-5 input=image,pdf plans=pro",
        OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
        OPENAI_COMPATIBLE_MODELS: "llama3.1:8b\nQwen/Qwen2.5-7B-Instruct id=qwen context=32768",
        CHAT_DEFAULT_MODEL: "gpt-4.1, go=llama3.1:8b",
      }),
    );
    const summary = catalog.map((m) => [
      m.id,
      m.provider,
      m.providerModel,
      m.contextWindow,
      m.inputModalities,
      m.plans,
    ]);
    expect(summary).toEqual([
      ["gpt-4.1-mini", "openai", "gpt-4.1-mini", 1_047_576, ["text", "pdf", "image"], ["go", "plus", "pro"]],
      ["gpt-4.1", "openai", "gpt-4.1", 128_000, ["text"], ["plus", "pro"]],
      ["claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", 200_000, ["text", "image", "pdf"], ["pro"]],
      ["llama3.1:8b", "openai-compatible", "llama3.1:8b", 8_192, ["text"], ["go", "plus", "pro"]],
      ["qwen", "openai-compatible", "Qwen/Qwen2.5-7B-Instruct", 32_768, ["text"], ["go", "plus", "pro"]],
    ]);
    expect(catalog.map((m) => [m.id, m.defaultFor])).toEqual([
      ["gpt-4.1-mini", []],
      ["gpt-4.1", ["plus", "pro"]],
      ["claude-sonnet-4-5", []],
      ["llama3.1:8b", ["go"]],
      ["qwen", []],
    ]);
    expect(catalog[0]?.label).toBe("OpenAI gpt-4.1-mini");
  });

  test("without CHAT_DEFAULT_MODEL each plan's default is its first model", () => {
    const catalog = modelCatalog(
      parseEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_MODELS: "claude-opus-4-1 plans=pro; claude-haiku-4-5" }),
    );
    expect(catalog.map((m) => [m.id, m.defaultFor])).toEqual([
      ["claude-opus-4-1", ["pro"]],
      ["claude-haiku-4-5", ["go", "plus"]],
    ]);
  });

  test("configuration errors stop the boot, naming the variable", () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ OPENAI_MODELS: "gpt-4.1" }, /OPENAI_API_KEY: required when OPENAI_MODELS is set/],
      [{ OPENAI_COMPATIBLE_MODELS: "llama3.1:8b" }, /OPENAI_COMPATIBLE_BASE_URL/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1 context=lots" }, /OPENAI_MODELS: entry "gpt-4.1 context=lots"/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1 input=audio" }, /OPENAI_MODELS.*input must be/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1 plans=free" }, /OPENAI_MODELS.*plans must be/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1 temperature=0" }, /unknown option "temperature=0"/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1; gpt-4.1" }, /listed twice/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "gpt-4.1", CHAT_DEFAULT_MODEL: "gpt-5" }, /CHAT_DEFAULT_MODEL: "gpt-5"/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "a plans=pro", CHAT_DEFAULT_MODEL: "go=a" }, /go plan may not use a/],
      [{ OPENAI_API_KEY: "k", OPENAI_MODELS: "a", CHAT_DEFAULT_MODEL: "free=a" }, /"free" is not a plan/],
      [{ CHAT_DEFAULT_MODEL: "gpt-4.1" }, /CHAT_DEFAULT_MODEL/],
    ];
    for (const [source, message] of bad) expect(() => modelCatalog(parseEnv(source))).toThrow(message);
  });
});
