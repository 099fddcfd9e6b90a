import { type Static, Type as T } from "@sinclair/typebox";
import { AppError } from "../errors";
import type { PlanId } from "../plans";
import { OFFLINE_MODEL_ID } from "./offlineModel";

/**
 * The health models this deployment can run and which plans may use them. Only the built-in
 * offline model exists until a provider is configured (README "Models and routing").
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
  label: "Offline reference assistant (no language model: picks one tool by rules and quotes its result)",
  provider: "offline",
  providerModel: OFFLINE_MODEL_ID,
  contextWindow: 32_000,
  inputModalities: ["text"],
  plans: ["go", "plus", "pro"],
  defaultFor: ["go", "plus", "pro"],
};

export const DEFAULT_CATALOG: readonly ModelEntry[] = [OFFLINE_MODEL];

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
 * `auto`: attachments that are images or PDFs need a model that reads them; a context too long
 * for the default goes to the entitled model with the largest window. A context that fits no
 * candidate is 413.
 */
export function routeModel(
  catalog: readonly ModelEntry[],
  plan: PlanId,
  requested: string,
  need: { contextTokens: number; modalities: readonly ("image" | "pdf")[] },
): ModelEntry {
  const entitled = catalog.filter((model) => model.plans.includes(plan));
  let candidates: ModelEntry[];
  if (requested !== "auto") {
    const model = catalog.find((entry) => entry.id === requested);
    if (!model) {
      throw new AppError("VALIDATION_FAILED", "The request is invalid: see details.", {
        details: [
          { in: "body", path: "/model", message: `Unknown model; GET /api/v1/models?surface=health lists them` },
        ],
      });
    }
    if (!model.plans.includes(plan)) {
      throw new AppError(
        "MODEL_NOT_AVAILABLE",
        `The ${plan} plan cannot use ${requested}; GET /api/v1/models lists the models it can.`,
      );
    }
    candidates = [model];
  } else {
    const readers = entitled.filter((model) => need.modalities.every((kind) => model.inputModalities.includes(kind)));
    candidates = [...readers].sort((a, b) => Number(b.defaultFor.includes(plan)) - Number(a.defaultFor.includes(plan)));
    if (candidates.length === 0) {
      throw new AppError(
        "MODEL_NOT_AVAILABLE",
        `No model available to the ${plan} plan reads ${need.modalities.join(" and ")} attachments.`,
      );
    }
  }
  const fits = candidates.find((model) => need.contextTokens + RESERVED_TOKENS <= model.contextWindow);
  if (!fits) {
    const largest = Math.max(...candidates.map((model) => model.contextWindow));
    throw new AppError(
      "CONTEXT_TOO_LARGE",
      `The conversation is about ${need.contextTokens} tokens; the largest model available holds ${largest - RESERVED_TOKENS}. Start a new chat or shorten the message.`,
    );
  }
  return fits;
}
