import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { jsonSchema, Output, streamText } from "ai";
import type { Env } from "../../core/env";
import type { Logger } from "../../core/log";
import { languageModelFor } from "../../llm/languageModels";
import type { ModelEntry } from "../../llm/models";
import { LevelSchema, type Triage } from "../../safety/assess";
import { moreUrgent } from "../../safety/levels";

/**
 * With a language model configured, the turn also asks it for a triage of the message (structured
 * output through the AI SDK): the same five levels and a one-line reason. The final level is the
 * more urgent of the rules' and the model's, so the model can raise the level, never lower it. A
 * model that fails, times out or answers off the schema leaves the rules' level as it is.
 */
const ModelTriageSchema = T.Object({ level: LevelSchema, reason: T.String({ maxLength: 400 }) });
type ModelTriage = { level: Triage["level"]; reason: string };

/** Long enough for a hosted model's short structured answer; the rules' level stands if it is slower. */
export const MODEL_TRIAGE_TIMEOUT_MS = 8_000;

const INSTRUCTIONS = [
  "You triage one message sent to a health assistant. Answer with the level of care it calls for and one plain sentence why.",
  "emergency: call the emergency number now (e.g. chest pain that could be a heart attack, stroke signs, severe breathing difficulty, anaphylaxis, suicidal intent, overdose, a seizure over 5 minutes, unresponsive, fever in a baby under 3 months).",
  "urgent: same-day care (urgent care, A&E, out-of-hours). soon: see a doctor within days. self_care: can be managed at home.",
  "none: not a report of current symptoms (a request for information or papers, an idiom, past or family history, a hypothetical).",
  "When unsure between two levels, choose the more urgent one.",
].join("\n");

export async function askModelTriage(
  ctx: { env: Env; log: Logger },
  model: ModelEntry,
  text: string,
): Promise<ModelTriage | null> {
  if (model.provider === "offline" || !text.trim()) return null;
  try {
    const result = streamText({
      model: languageModelFor(model, ctx.env),
      system: INSTRUCTIONS,
      prompt: text,
      output: Output.object({ schema: jsonSchema(ModelTriageSchema as never), name: "triage" }),
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(MODEL_TRIAGE_TIMEOUT_MS),
      // The failure surfaces from `result.output` below and is logged there (the SDK would print it).
      onError: () => {},
    });
    const answer: unknown = await result.output;
    if (Value.Check(ModelTriageSchema, answer)) return answer;
    ctx.log.warn("chat triage: the model's answer is off the schema", { model: model.id });
  } catch (error) {
    ctx.log.warn("chat triage: the model did not answer", { model: model.id, error });
  }
  return null;
}

/** The rules' triage with the model's beside it: the more urgent level wins. */
export function withModelTriage(rules: Triage, model: ModelTriage | null): Triage {
  if (!model) return rules;
  const level = moreUrgent(rules.level, model.level);
  const reason =
    level === rules.level ? rules.reason : `${rules.reason} The model rated it ${model.level}: ${model.reason}`;
  return { ...rules, level, reason, model };
}
