import { type Static, Type as T } from "@sinclair/typebox";
import type { Env } from "../core/env";
import { AppError, invalidRequest } from "../core/errors";
import type { PlanId } from "../core/plans";
import { OFFLINE_MODEL_ID } from "./offline/model";
import { configError, defaultModels } from "./providers/defaults";
import { HEALTH_PLANS, parseModelList } from "./providers/modelList";

/**
 * The health models this deployment can run and which plans may use them. Only the built-in
 * offline model exists until a provider is configured (README "Models, routing and providers").
 */
export const ModelInfoSchema = T.Object({
  id: T.String(),
  label: T.String(),
  provider: T.Union([
    T.Literal("offline"),
    T.Literal("openai"),
    T.Literal("anthropic"),
    T.Literal("openai-compatible"),
  ]),
  contextWindow: T.Integer({
    description: "Tokens the model reads at once (history + message + attachments + reply).",
  }),
  inputModalities: T.Array(T.Union([T.Literal("text"), T.Literal("image"), T.Literal("pdf")])),
  default: T.Boolean({
    description: "The model `auto` (or no `model`) uses for this plan when nothing else is needed.",
  }),
});
export type ModelInfo = Static<typeof ModelInfoSchema>;

export interface ModelEntry extends Omit<ModelInfo, "default"> {
  /** The provider's own model name. */
  providerModel: string;
  plans: readonly PlanId[];
  /** The plans for which this is the default health model. */
  defaultFor: readonly PlanId[];
}

export const OFFLINE_MODEL: ModelEntry = {
  id: OFFLINE_MODEL_ID,
  label:
    "Offline reference assistant (no language model: runs the tools a question needs by rules and quotes their results)",
  provider: "offline",
  providerModel: OFFLINE_MODEL_ID,
  contextWindow: 32_000,
  // It accepts images to report their type, size and dimensions; it cannot see them, and says so.
  inputModalities: ["text", "image"],
  plans: ["go", "plus", "pro"],
  defaultFor: ["go", "plus", "pro"],
};

export const DEFAULT_CATALOG: readonly ModelEntry[] = [OFFLINE_MODEL];

type Provider = ModelEntry["provider"];

/** Per provider: its *_MODELS variable, a label prefix, and the window assumed when `context=` is not given. */
const PROVIDERS = [
  { provider: "openai", variable: "OPENAI_MODELS", label: "OpenAI", context: 128_000 },
  { provider: "anthropic", variable: "ANTHROPIC_MODELS", label: "Anthropic", context: 200_000 },
  // Local servers often run with a small context (Ollama's default is a few thousand tokens).
  { provider: "openai-compatible", variable: "OPENAI_COMPATIBLE_MODELS", label: "OpenAI-compatible", context: 8_192 },
] as const satisfies readonly { provider: Provider; variable: keyof Env; label: string; context: number }[];

/** What a provider needs besides its model list; a missing one stops the process at boot. */
const REQUIRED: Record<Exclude<Provider, "offline">, keyof Env> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
};

/**
 * The catalog from configuration: every model listed in OPENAI_MODELS, ANTHROPIC_MODELS and
 * OPENAI_COMPATIBLE_MODELS (in that order), or just the offline model when none is. Each plan's
 * default comes from CHAT_DEFAULT_MODEL, else it is the first model the plan may use.
 */
export function modelCatalog(env: Env): readonly ModelEntry[] {
  const listed: ModelEntry[] = PROVIDERS.flatMap((p) => {
    const models = parseModelList(p.variable, env[p.variable], p.context);
    const needs = REQUIRED[p.provider];
    if (models.length > 0 && !env[needs]) throw configError(`${needs}: required when ${p.variable} is set`);
    return models.map((model) => ({
      ...model,
      provider: p.provider,
      label: `${p.label} ${model.providerModel}`,
      defaultFor: [],
    }));
  });
  if (listed.length === 0) {
    defaultModels(env.CHAT_DEFAULT_MODEL, DEFAULT_CATALOG);
    return DEFAULT_CATALOG;
  }
  const seen = new Set<string>([OFFLINE_MODEL_ID]);
  for (const { id } of listed) {
    if (seen.has(id)) throw configError(`model id "${id}" is listed twice; give one an id= option`);
    seen.add(id);
  }
  const defaults = defaultModels(env.CHAT_DEFAULT_MODEL, listed);
  return listed.map((model) => ({
    ...model,
    defaultFor: HEALTH_PLANS.filter(
      (plan) => (defaults.get(plan) ?? listed.find((entry) => entry.plans.includes(plan))) === model,
    ),
  }));
}

/** The models a plan may run, as listed by GET /api/v1/models. */
export function modelsForPlan(catalog: readonly ModelEntry[], plan: PlanId): ModelInfo[] {
  return catalog
    .filter((model) => model.plans.includes(plan))
    .map(({ id, label, provider, contextWindow, inputModalities, defaultFor }) => ({
      id,
      label,
      provider,
      contextWindow,
      inputModalities,
      default: defaultFor.includes(plan),
    }));
}

/** Estimated tokens of text: about four characters each, rounded up (no tokenizer per provider). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Room kept for the system prompt, the tool definitions and the reply. */
export const RESERVED_TOKENS = 4_000;

/**
 * Picks the model for a turn. An explicit id must exist (else 400) and be entitled (else 403).
 * `auto`: the plan's default, unless attachments are images or PDFs it cannot read (then the first
 * entitled model in catalog order that reads them); a context too long for that choice goes to the
 * entitled reader with the largest window. A context that fits no candidate is 413.
 */
export function routeModel(
  catalog: readonly ModelEntry[],
  plan: PlanId,
  requested: string,
  need: { contextTokens: number; modalities: readonly ("image" | "pdf")[] },
): ModelEntry {
  const candidates =
    requested === "auto" ? autoCandidates(catalog, plan, need.modalities) : [explicit(catalog, plan, requested)];
  const fits = (model: ModelEntry) => need.contextTokens + RESERVED_TOKENS <= model.contextWindow;
  const largest = candidates.reduce((a, b) => (b.contextWindow > a.contextWindow ? b : a));
  const chosen = [candidates[0] as ModelEntry, largest].find(fits);
  if (!chosen) {
    throw new AppError(
      "CONTEXT_TOO_LARGE",
      `The conversation is about ${need.contextTokens} tokens; the largest model available holds ${largest.contextWindow - RESERVED_TOKENS}. Start a new chat or shorten the message.`,
    );
  }
  return chosen;
}

function explicit(catalog: readonly ModelEntry[], plan: PlanId, requested: string): ModelEntry {
  const model = catalog.find((entry) => entry.id === requested);
  if (!model) {
    throw invalidRequest([
      { in: "body", path: "/model", message: `Unknown model; GET /api/v1/models?surface=health lists them` },
    ]);
  }
  if (!model.plans.includes(plan)) {
    throw new AppError(
      "MODEL_NOT_AVAILABLE",
      `The ${plan} plan cannot use ${requested}; GET /api/v1/models lists the models it can.`,
    );
  }
  return model;
}

/** Entitled models that read the attachments, the plan's default first, then in catalog order. */
function autoCandidates(
  catalog: readonly ModelEntry[],
  plan: PlanId,
  modalities: readonly ("image" | "pdf")[],
): ModelEntry[] {
  const entitled = catalog.filter((model) => model.plans.includes(plan));
  if (entitled.length === 0) {
    throw new AppError("MODEL_NOT_AVAILABLE", `This server offers no health chat model to the ${plan} plan.`);
  }
  const readers = entitled.filter((model) => modalities.every((kind) => model.inputModalities.includes(kind)));
  if (readers.length === 0) {
    throw new AppError(
      "MODEL_NOT_AVAILABLE",
      `No model available to the ${plan} plan reads ${modalities.join(" and ")} attachments.`,
    );
  }
  return [...readers].sort((a, b) => Number(b.defaultFor.includes(plan)) - Number(a.defaultFor.includes(plan)));
}
