import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Ctx } from "../../shared/context/ctx";
import { publicUrl } from "../../shared/core/env";
import { clipErrorText } from "../../shared/core/errors";
import { modelsForPlan } from "../../shared/llm/models";
import { jsonBytesOf } from "../../shared/papers/page";
import { TOOLS, TOOLS_BY_NAME } from "../../shared/toolCatalog";
import { runTool, type Screen, ToolCrash } from "../../shared/tools/run";
import { reservedKey, unstorableText } from "../plugins/inputGuard";
import { SCOPE_META } from "./meta";
import type { PrebuiltJson } from "./prebuiltJson";

/** Built once per process: the list is the same for every caller, and a request only reads it. */
export const TOOL_LIST = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.input as unknown as { type: "object" },
  outputSchema: tool.output as unknown as { type: "object" },
  annotations: { title: tool.title, ...tool.annotations },
  _meta: { [SCOPE_META]: tool.scope },
}));

/** The key of health_chat's model question in `inputRequests` / `inputResponses`. */
export const MODEL_CHOICE = "model";
/** The key of the consent step a health tool asks for (a URL-mode elicitation to the consent page). */
export const CONSENT_STEP = "consent";

/**
 * Every tool call goes through `runTool` (shared with the chat): a failure the model may read is an
 * `isError` result that says what to change or that a retry may help; anything else is a JSON-RPC
 * internal error without internals (the request id finds it in our logs). On the 2026-07-28 era a
 * refusal the user can lift asks them instead (`input_required`): see `askUser`.
 */
export async function callTool(
  ctx: Ctx,
  name: string,
  args: Record<string, unknown>,
  request: ServerContext["mcpReq"],
  { modern, prebuilt }: { modern: boolean; prebuilt: PrebuiltJson },
): Promise<CallToolResult | InputRequiredResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) return failure(`Unknown tool "${name}". Call tools/list for the available tools.`);
  const chosen = modern && name === "health_chat" ? chosenModel(ctx, request) : undefined;
  try {
    const result = await runTool(tool, ctx, chosen ? { ...args, model: chosen } : args, screenArguments);
    if ("output" in result) {
      return {
        content: [{ type: "text", text: tool.render(result.output) }],
        structuredContent: withPrebuiltJson(result.output, prebuilt),
      };
    }
    const question = modern ? askUser(ctx, name, result.kind, request) : undefined;
    if (question) return question;
    await request.log("warning", { tool: name, failure: result.failure, requestId: ctx.requestId });
    return failure(result.failure);
  } catch (error) {
    if (!(error instanceof ToolCrash)) ctx.log.error("tool failed", { requestId: ctx.requestId, tool: name, error });
    throw new ProtocolError(ProtocolErrorCode.InternalError, `Tool ${name} failed; request id ${ctx.requestId}.`);
  }
}

/**
 * The output with each top-level list that exists as JSON bytes (a search page's papers) replaced
 * by a placeholder for those bytes: the answer then carries them without serializing them again.
 */
function withPrebuiltJson(output: Record<string, unknown>, prebuilt: PrebuiltJson): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(output)) {
    const bytes = Array.isArray(value) ? jsonBytesOf(value) : undefined;
    if (!bytes) continue;
    copy = copy ?? { ...output };
    copy[key] = prebuilt.placeholder(bytes);
  }
  return copy ?? output;
}

/** As for a REST body: a reserved key whatever the schema says; unstorable text once it fits. */
const screenArguments: Screen = (args, fits) => reservedKey(args) ?? (fits ? unstorableText(args) : undefined);

/** The model the user picked on a retried health_chat, when it is one the plan has. */
function chosenModel(ctx: Ctx, request: ServerContext["mcpReq"]): string | undefined {
  const answer = acceptedContent(request.inputResponses, MODEL_CHOICE)?.model;
  const offered = modelsForPlan(ctx.models, ctx.plan).map((model) => model.id);
  return typeof answer === "string" && offered.includes(answer) ? answer : undefined;
}

/**
 * What a tool asks the user instead of failing, when the client can show the question:
 * - health_chat with a model the plan lacks: a choice among the plan's models (a form; the retry
 *   runs with the choice, checked against the plan again);
 * - any health tool refused for want of consent: the website's consent page (URL mode). Consent is
 *   recorded only there, by the signed-in user reading its text; the retry re-reads the stored
 *   consent and never trusts the answer, so a client that "accepts" without the user gets the
 *   same refusal. (health_chat itself needs no consent: it answers without the stored profile.)
 * Asked once: a retry that still fails (declined, or consent still missing) is the plain error. A
 * plan that lacks a feature is a plain error: nothing the user confirms here changes the plan.
 */
function askUser(
  ctx: Ctx,
  tool: string,
  kind: string | undefined,
  request: ServerContext["mcpReq"],
): InputRequiredResult | undefined {
  const answered = request.inputResponses ?? {};
  // The SDK lifts the request's envelope (version, capabilities) out of `_meta`; its type is opaque.
  const envelope = request.envelope as Record<string, { elicitation?: { url?: object } }> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  const elicitation = capabilities?.elicitation;
  if (tool === "health_chat" && kind === "MODEL_NOT_AVAILABLE" && elicitation && !(MODEL_CHOICE in answered)) {
    const models = modelsForPlan(ctx.models, ctx.plan);
    return inputRequired({
      inputRequests: {
        [MODEL_CHOICE]: inputRequired.elicit({
          message: "Your plan does not include the model you asked for. Which of your plan's models should answer?",
          requestedSchema: {
            type: "object",
            properties: {
              model: {
                type: "string",
                title: "Model",
                oneOf: models.map((model) => ({ const: model.id, title: model.label })),
                default: models.find((model) => model.default)?.id,
              },
            },
            required: ["model"],
          },
        }),
      },
    });
  }
  if (kind === "CONSENT_REQUIRED" && elicitation?.url && !(CONSENT_STEP in answered)) {
    return inputRequired({
      inputRequests: {
        [CONSENT_STEP]: inputRequired.elicitUrl({
          message:
            "This needs your consent to store and use your health data. Read and give it on the website, then continue.",
          url: `${publicUrl(ctx.env)}/health`,
        }),
      },
    });
  }
  return undefined;
}

/** Longest isError text: it quotes the arguments (a property name, an id), which can be huge. */
const MAX_FAILURE_TEXT = 2_000;

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text: clipErrorText(text, MAX_FAILURE_TEXT) }], isError: true };
}
