import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { requireFeature } from "../auth/access";
import { missingScope } from "../auth/scopes";
import type { Ctx } from "../context/ctx";
import { type AppError, isExposed } from "../core/errors";
import type { AnyTool } from "./types";

/**
 * What a tool call ends as, for both adapters (MCP, chat). `failure`: a message the model may read
 * and act on (bad arguments, plan, consent, not found, or a retry may help), from the error table's
 * `expose` column, with its kind when a service error said it (an adapter may offer a way out). Anything else throws `ToolCrash` after logging the cause, and the adapter
 * answers without internals.
 */
export type ToolResult = { output: Static<TObject> } | { failure: string; kind?: AppError["kind"] };

export class ToolCrash extends Error {
  constructor(readonly tool: string) {
    super(`Tool ${tool} failed`);
    this.name = "ToolCrash";
  }
}

/**
 * Checks the caller's OAuth scope (an MCP token's, or the one a chat turn it started carries),
 * validates the arguments, checks the plan gate (the same as REST), runs the tool.
 */
export async function runTool(tool: AnyTool, ctx: Ctx, args: unknown): Promise<ToolResult> {
  const refusal = missingScope(ctx, tool.scope);
  if (refusal) return { failure: `${tool.name}: ${refusal}` };
  if (!Value.Check(tool.input, args)) {
    const problems = [...Value.Errors(tool.input, args)].slice(0, 10).map((e) => `${e.path || "/"}: ${e.message}`);
    return { failure: `Invalid arguments for ${tool.name}: ${problems.join("; ")}` };
  }
  try {
    if (tool.feature) requireFeature(ctx.plans, ctx, tool.feature);
    return { output: await tool.run(ctx, args as Static<TObject>) };
  } catch (error) {
    if (isExposed(error)) return { failure: failureMessage(error), kind: error.kind };
    ctx.log.error("tool failed", { requestId: ctx.requestId, tool: tool.name, error });
    throw new ToolCrash(tool.name);
  }
}

/** The error's message plus its field details, which say what to change (also for MCP's other methods). */
export function failureMessage(error: AppError): string {
  const details = (error.details ?? []).map((d) => `${d.path}: ${d.message}`);
  const text =
    error.message.startsWith("The request is invalid") && details.length ? "Invalid arguments" : error.message;
  return details.length && !details.every((d) => text.includes(d)) ? `${text} (${details.join("; ")})` : text;
}
