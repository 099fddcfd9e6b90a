import { createApp } from "../../api/app";
import type { Deps } from "../../shared/context/deps";
import type { Env } from "../../shared/core/env";
import { modelCatalog } from "../../shared/llm/models";
import { startWorkers } from "../../workers/runner";
import { openaiReplayEnv, type ProviderReplay, startProviderReplay } from "../fixtures/providers/replayServer";
import { healthAccount } from "./health";
import type { TestApp } from "./http";
import { testDeps } from "./infra";
import { startUpstreamFixtures, upstreamEnv } from "./upstream";

export interface AttachmentWorld {
  deps: Deps;
  app: TestApp;
  key: string;
  /** Replays OpenAI: a model that reads images and PDFs (`gpt-4.1-mini`). */
  openai: ProviderReplay;
  /** Replays an OpenAI-compatible server: a text-only model, the default. */
  local: ProviderReplay;
  stop(): Promise<void>;
}

/**
 * Two replayed providers, a text-only default and one that reads files, with workers for chat and
 * uploads: what the attachment tests look at is what each provider receives.
 */
export async function startAttachmentWorld(): Promise<AttachmentWorld> {
  const upstream = startUpstreamFixtures();
  const openai = startProviderReplay("openai");
  const local = startProviderReplay("openai-compatible");
  const base = await testDeps();
  const env: Env = {
    ...base.env,
    ...upstreamEnv(upstream),
    ...openaiReplayEnv(openai),
    OPENAI_COMPATIBLE_BASE_URL: local.baseUrl,
    OPENAI_COMPATIBLE_MODELS: "llama3.1:8b context=131072",
    CHAT_DEFAULT_MODEL: "llama3.1:8b",
  };
  const deps = { ...base, env, models: modelCatalog(env) };
  const workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda", "uploads"] });
  const app = createApp(deps);
  const key = (await healthAccount(deps, app)).apiKey;
  return {
    deps,
    app,
    key,
    openai,
    local,
    async stop() {
      await workers.close();
      await upstream.stop();
      await openai.stop();
      await local.stop();
    },
  };
}
