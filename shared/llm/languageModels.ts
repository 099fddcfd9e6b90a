import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { defaultSettingsMiddleware, type LanguageModel, wrapLanguageModel } from "ai";
import type { Env } from "../core/env";
import { AppError } from "../core/errors";
import type { ModelEntry } from "./models";
import { createOfflineModel } from "./offline/model";
import type { OfflineVocabulary } from "./offline/vocabulary";

/** The provider name of the OpenAI-compatible provider: the key of its provider options and metadata. */
export const OPENAI_COMPATIBLE_NAME = "openai-compatible";

/** The reply budget sent to Anthropic as max_tokens (see below). */
export const ANTHROPIC_MAX_OUTPUT_TOKENS = 4096;

/**
 * The AI SDK model behind a catalog entry, with the deployment's credentials and base URLs. Keys
 * and base URLs are always passed explicitly: left undefined, the provider SDKs would read them
 * from the process environment on their own, behind shared/core/env.ts's back. The offline model
 * reads the service's vocabularies (conditions, cached medication names) through `vocabulary`.
 */
export function languageModelFor(entry: ModelEntry, env: Env, vocabulary?: OfflineVocabulary): LanguageModel {
  switch (entry.provider) {
    case "offline":
      return createOfflineModel(vocabulary);
    case "openai": {
      const openai = createOpenAI({ apiKey: required(env.OPENAI_API_KEY, entry), baseURL: env.OPENAI_BASE_URL });
      // The Responses API (the SDK's default for OpenAI). store: false keeps health conversations
      // out of OpenAI's stored responses; every request then carries the whole history itself.
      return wrapLanguageModel({
        model: openai.responses(entry.providerModel),
        middleware: defaultSettingsMiddleware({ settings: { providerOptions: { openai: { store: false } } } }),
      });
    }
    case "anthropic": {
      const anthropic = createAnthropic({
        apiKey: required(env.ANTHROPIC_API_KEY, entry),
        baseURL: env.ANTHROPIC_BASE_URL,
      });
      // The Messages API requires max_tokens and refuses a request whose prompt plus max_tokens exceeds
      // the window; the SDK would ask for the model's maximum (64k for Sonnet 4.5), which would turn
      // long chats our 413 check admits into provider errors. Health answers are short.
      return wrapLanguageModel({
        model: anthropic(entry.providerModel),
        middleware: defaultSettingsMiddleware({ settings: { maxOutputTokens: ANTHROPIC_MAX_OUTPUT_TOKENS } }),
      });
    }
    case "openai-compatible":
      return createOpenAICompatible({
        name: OPENAI_COMPATIBLE_NAME,
        baseURL: required(env.OPENAI_COMPATIBLE_BASE_URL, entry),
        // Ollama and llama.cpp need no key; the SDK then sends no Authorization header.
        apiKey: env.OPENAI_COMPATIBLE_API_KEY,
        // Ask for the final usage chunk (stream_options.include_usage), which these servers support.
        includeUsage: true,
      }).chatModel(entry.providerModel);
  }
}

/** modelCatalog() already refuses a provider without its key or URL; this guards a hand-built catalog. */
function required(value: string | undefined, entry: ModelEntry): string {
  if (value) return value;
  throw new AppError("ASSISTANT_FAILED", `The ${entry.provider} provider is not configured on this server.`);
}
