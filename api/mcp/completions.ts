import type { CompleteRequest, CompleteResult } from "@modelcontextprotocol/server";
import type { Ctx } from "../../shared/context/ctx";
import { clipErrorText } from "../../shared/core/errors";
import { codePoints } from "../../shared/core/text";
import { unstorableText } from "../plugins/inputGuard";
import {
  type Completer,
  conditionNames,
  logIds,
  logTitles,
  medicationNames,
  NO_COMPLETION,
  paperIds,
  recordImportIds,
} from "./completers";
import { answered, invalidParams } from "./errors";
import { RECORD_IMPORT_TEMPLATE } from "./healthRecordResources";
import { PROMPTS_BY_NAME } from "./prompts";
import { TEMPLATE_URIS } from "./resources";

/**
 * completion/complete for prompt arguments and resource-template variables. An argument or
 * variable without a source (a topic, a date, a lab panel id) completes to nothing; an unknown
 * prompt, template, argument or variable is -32602, as the spec says for an invalid prompt name.
 */
const FOR_PROMPTS: Record<string, Record<string, Completer>> = {
  prepare_doctor_visit: { log: logTitles },
  explain_condition: { condition: conditionNames },
  check_my_medications: { medication: medicationNames },
};

const FOR_TEMPLATES: Record<string, Record<string, Completer>> = {
  "paper://{arxivId}": { arxivId: paperIds },
  "health-log://{id}": { id: logIds },
  [RECORD_IMPORT_TEMPLATE]: { importId: recordImportIds },
};

/** Longer than any value a source could complete (a prompt argument is at most 300 characters). */
const MAX_VALUE = 300;

const variablesOf = (uriTemplate: string) => [...uriTemplate.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);

function completerFor(params: CompleteRequest["params"]): Completer | undefined {
  const { ref, argument } = params;
  if (ref.type === "ref/prompt") {
    const prompt = PROMPTS_BY_NAME.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt "${clipErrorText(ref.name, 80)}". Call prompts/list.`);
    if (!Object.hasOwn(prompt.args.properties, argument.name)) {
      throw invalidParams(`The ${prompt.name} prompt has no argument "${clipErrorText(argument.name, 80)}".`);
    }
    return FOR_PROMPTS[prompt.name]?.[argument.name];
  }
  if (!TEMPLATE_URIS.has(ref.uri)) {
    throw invalidParams(`Unknown resource template "${clipErrorText(ref.uri, 80)}". Call resources/templates/list.`);
  }
  if (!variablesOf(ref.uri).includes(argument.name)) {
    throw invalidParams(`The template ${ref.uri} has no variable "${clipErrorText(argument.name, 80)}".`);
  }
  return FOR_TEMPLATES[ref.uri]?.[argument.name];
}

export function complete(ctx: Ctx, params: CompleteRequest["params"]): Promise<CompleteResult> {
  return answered(ctx, "completion/complete", async () => {
    const completer = completerFor(params);
    const { value } = params.argument;
    if (codePoints(value) > MAX_VALUE) throw invalidParams(`argument.value: at most ${MAX_VALUE} characters.`);
    const unstorable = unstorableText(value);
    if (unstorable) throw invalidParams(`argument.value: ${unstorable.message}`);
    return { completion: completer ? await completer(ctx, value) : NO_COMPLETION };
  });
}
