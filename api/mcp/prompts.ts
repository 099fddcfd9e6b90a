import type { GetPromptResult, Prompt } from "@modelcontextprotocol/server";
import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Ctx } from "../../shared/context/ctx";
import { clipErrorText } from "../../shared/core/errors";
import { reservedKey, unstorableText } from "../plugins/inputGuard";
import { answered, authorized, invalidParams } from "./errors";
import { prepareDoctorVisit } from "./healthPrompts";
import { checkMyMedications } from "./medicationPrompt";
import { SCOPES_META } from "./meta";
import type { PromptDefinition } from "./promptKit";
import { explainCondition, literatureReview } from "./researchPrompts";

/** The prompts, in prompts/list order. */
export const PROMPTS = [prepareDoctorVisit, explainCondition, checkMyMedications, literatureReview].map(
  (prompt) => prompt as unknown as PromptDefinition,
);
export const PROMPTS_BY_NAME = new Map(PROMPTS.map((prompt) => [prompt.name, prompt]));

function argumentsOf(schema: TObject): NonNullable<Prompt["arguments"]> {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    description: String(property.description ?? ""),
    required: required.has(name),
  }));
}

/** prompts/list, built once. */
export const PROMPT_LIST: Prompt[] = PROMPTS.map((prompt) => ({
  name: prompt.name,
  title: prompt.title,
  description: prompt.description,
  arguments: argumentsOf(prompt.args),
  _meta: { [SCOPES_META]: prompt.scopes },
}));

/** What a caller sees when the arguments do not fit: each problem, then what the prompt takes. */
function invalidArguments(prompt: PromptDefinition, problems: string[]): never {
  const takes = argumentsOf(prompt.args)
    .map((arg) => `${arg.name}${arg.required ? " (required)" : ""}`)
    .join(", ");
  throw invalidParams(`Invalid arguments for ${prompt.name}: ${problems.join("; ")}. It takes: ${takes}.`);
}

function checkedArguments(prompt: PromptDefinition, args: Record<string, string>): Static<TObject> {
  const unstorable = reservedKey(args) ?? unstorableText(args);
  if (unstorable) invalidArguments(prompt, [`${unstorable.path}: ${unstorable.message}`]);
  if (Value.Check(prompt.args, args)) return args;
  // A missing argument reads as "required" (the string kind would only say what it expects).
  const missing = (prompt.args.required ?? []).filter((name) => !Object.hasOwn(args, name)).map((name) => `/${name}`);
  const problems = [...Value.Errors(prompt.args, args)]
    .filter((error) => !missing.includes(error.path))
    .map((error) => `${clipErrorText(error.path, 60) || "/"}: ${error.message}`);
  return invalidArguments(
    prompt,
    [...new Set([...missing.map((path) => `${path}: required`), ...problems])].slice(0, 5),
  );
}

/**
 * prompts/get: `authorize` (every scope the prompt's data needs, then the plan), the arguments,
 * then the messages. A refusal is -32602 saying what to change; an argument naming a record the
 * caller does not have (a log, a condition) is -32602 too.
 */
export function getPrompt(ctx: Ctx, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
  const prompt = PROMPTS_BY_NAME.get(name);
  if (!prompt) {
    throw invalidParams(`Unknown prompt "${clipErrorText(name, 80)}". Call prompts/list for the available prompts.`);
  }
  return answered(ctx, "prompts/get", async () => {
    await authorized(ctx, { scope: prompt.scopes, feature: prompt.feature }, `The ${prompt.name} prompt`);
    return prompt.messages(ctx, checkedArguments(prompt, args ?? {}));
  });
}
