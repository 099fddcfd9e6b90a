import type { Static, TObject } from "@sinclair/typebox";
import type { Deps } from "../deps";
import type { Feature } from "../services/access";
import type { Principal } from "../services/authenticate";
import type { RateDecision } from "../services/rateLimit";

/** What a tool runs with: the process's clients plus the caller of this request or chat turn. */
export interface ToolContext {
  deps: Deps;
  principal: Pick<Principal, "accountId" | "plan">;
  /** This request's rate decision (MCP); absent inside a chat turn, which runs on a worker. */
  rate?: RateDecision;
  requestId: string;
}

/**
 * A tool, defined once and adapted for MCP (api/mcp) and for the chat model. Input and output
 * are TypeBox schemas, which are JSON Schema, so both adapters publish them as they are.
 */
export interface ToolDefinition<I extends TObject = TObject, O extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** A plan feature the caller needs (checked by the adapters through the same gate as REST). */
  feature?: Feature;
  run(ctx: ToolContext, input: Static<I>): Promise<Static<O>> | Static<O>;
  /** A short text rendering of the result for clients that read text content. */
  render(output: Static<O>): string;
}

export function defineTool<I extends TObject, O extends TObject>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

export type AnyTool = ToolDefinition<TObject, TObject>;
