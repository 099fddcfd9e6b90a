import type { Static, TObject } from "@sinclair/typebox";
import type { Feature } from "../auth/access";
import type { Scope } from "../auth/scopes";
import type { Ctx } from "../context/ctx";

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
  /** A plan feature the caller needs: `runTool` asks `authorize`, the check REST uses too. */
  feature?: Feature;
  /**
   * The OAuth scope a token needs to call it (shared/auth/scopes.ts). `runTool` asks `authorize`
   * before anything runs, for both adapters: a chat turn started with a token carries its scopes.
   */
  scope: Scope;
  run(ctx: Ctx, input: Static<I>): Promise<Static<O>> | Static<O>;
  /** A short text rendering of the result for clients that read text content. */
  render(output: Static<O>): string;
}

export function defineTool<I extends TObject, O extends TObject>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

export type AnyTool = ToolDefinition<TObject, TObject>;
