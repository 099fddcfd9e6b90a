import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { authorize, ScopeRefusal } from "../auth/authorize";
import type { Ctx } from "../context/ctx";
import { type AppError, isExposed } from "../core/errors";
import type { AnyTool } from "./types";

/**
 * What a tool call ends as, for both adapters (MCP, chat). `failure`: a message the model may read
 * and act on (bad arguments, plan, consent, not found, or a retry may help), from the error table's
 * `expose` column, with its kind when a service error said it (an adapter may offer a way out).
 * Anything else throws `ToolCrash` after logging the cause, and the adapter answers without
 * internals.
 */
export type ToolResult = { output: Static<TObject> } | { failure: string; kind?: AppError["kind"] };

export class ToolCrash extends Error {
  constructor(readonly tool: string) {
    super(`Tool ${tool} failed`);
    this.name = "ToolCrash";
  }
}

/** A problem an adapter finds in the arguments themselves, with its JSON pointer. */
export type ArgumentProblem = { path: string; message: string };

/**
 * An adapter's own look at the arguments, beside the schema's: `fits` says whether they pass the
 * tool's schema (MCP refuses reserved keys whatever the schema says, and unstorable text once the
 * arguments fit).
 */
export type Screen = (args: unknown, fits: boolean) => ArgumentProblem | undefined;

/**
 * Authorizes the caller (shared/auth/authorize.ts) for the tool's scope, validates the arguments
 * (the adapter's `screen`, then the schema), authorizes the plan, runs the tool. Both adapters
 * come through here, so an MCP token and a chat turn started with one keep to the same scopes. The
 * scope is decided before the arguments are read (a token not granted it learns nothing about
 * them); the plan after them.
 */
export async function runTool(tool: AnyTool, ctx: Ctx, args: unknown, screen?: Screen): Promise<ToolResult> {
  try {
    await authorize(ctx, { scope: tool.scope });
    const fits = Value.Check(tool.input, args);
    const problem = screen?.(args, fits);
    if (problem) return { failure: `Invalid arguments for ${tool.name}: ${problem.path}: ${problem.message}` };
    if (!fits) {
      const problems = [...Value.Errors(tool.input, args)].slice(0, 10).map((e) => `${e.path || "/"}: ${e.message}`);
      return { failure: `Invalid arguments for ${tool.name}: ${problems.join("; ")}` };
    }
    await authorize(ctx, { feature: tool.feature });
    return { output: await tool.run(ctx, args as Static<TObject>) };
  } catch (error) {
    if (error instanceof ScopeRefusal) return { failure: `${tool.name}: ${error.message}` };
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
