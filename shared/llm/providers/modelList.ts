import { PLANS, type PlanId } from "../../core/plans";

/**
 * The format of OPENAI_MODELS, ANTHROPIC_MODELS and OPENAI_COMPATIBLE_MODELS: entries separated by
 * `;` (or newlines), each the provider's model name followed by optional `key=value` options:
 *
 *   gpt-4.1-mini context=1047576 input=text,image,pdf plans=go,plus,pro; gpt-4.1 plans=plus,pro
 *
 * - `context=` tokens the model reads at once (default per provider: PROVIDER_DEFAULTS);
 * - `input=` what it reads besides text: `image`, `pdf` (text is implied; default text only, so
 *   `auto` never sends an attachment to a model that was not declared to read it);
 * - `plans=` the plans that may use it (default every plan with health access);
 * - `id=` our model id when it should differ from the provider's name (default: the name).
 *
 * Options are named rather than positional because model names carry `:` (Ollama's `llama3.1:8b`)
 * and `/` (vLLM's `Qwen/Qwen2.5-7B-Instruct`), so no separator inside an entry is safe but a space.
 */
export interface ListedModel {
  id: string;
  providerModel: string;
  contextWindow: number;
  inputModalities: ("text" | "image" | "pdf")[];
  plans: PlanId[];
}

export const HEALTH_PLANS = (Object.keys(PLANS) as PlanId[]).filter((plan) => PLANS[plan].health);

const MODALITIES = ["text", "image", "pdf"] as const;

function listOption<T extends string>(value: string, allowed: readonly T[], what: string): T[] {
  const items = value.split(",").map((item) => item.trim());
  const bad = items.filter((item) => !allowed.includes(item as T));
  if (bad.length > 0 || items.length === 0) {
    throw new Error(`${what} must be some of ${allowed.join(", ")} (got ${bad.join(", ") || "nothing"})`);
  }
  return [...new Set(items as T[])];
}

function parseEntry(entry: string, defaultContext: number): ListedModel {
  const [name, ...options] = entry.split(/\s+/);
  const model: ListedModel = {
    id: name as string,
    providerModel: name as string,
    contextWindow: defaultContext,
    inputModalities: ["text"],
    plans: [...HEALTH_PLANS],
  };
  for (const option of options) {
    const [key, value = ""] = option.split(/=(.*)/s);
    if (key === "context" && /^\d{3,9}$/.test(value)) model.contextWindow = Number(value);
    else if (key === "context") throw new Error(`context must be a whole number of tokens (got "${value}")`);
    else if (key === "input")
      model.inputModalities = [...new Set(["text" as const, ...listOption(value, MODALITIES, "input")])];
    else if (key === "plans") model.plans = listOption(value, HEALTH_PLANS, "plans");
    else if (key === "id" && value) model.id = value;
    else throw new Error(`unknown option "${option}" (context=, input=, plans=, id=)`);
  }
  return model;
}

/** Parses one *_MODELS variable; an error names the variable and the entry. */
export function parseModelList(variable: string, value: string | undefined, defaultContext: number): ListedModel[] {
  const entries = (value ?? "")
    .split(/[;\n]/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    try {
      return parseEntry(entry, defaultContext);
    } catch (error) {
      throw new Error(`Invalid environment:\n  ${variable}: entry "${entry}": ${(error as Error).message}`);
    }
  });
}
