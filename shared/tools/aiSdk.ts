import { Value } from "@sinclair/typebox/value";
import { jsonSchema, type ToolSet, tool } from "ai";
import type { Ctx } from "../context/ctx";
import { runTool } from "./run";
import type { AnyTool } from "./types";

/**
 * The chat adapter of the tool catalog: AI SDK tools that validate with the same TypeBox schema as
 * MCP and run through the same `runTool`. A failure the model may read reaches it as the tool's
 * error text so it can correct itself; anything else is reported without internals.
 */
export function toAiSdkTools(tools: readonly AnyTool[], ctx: Ctx): ToolSet {
  return Object.fromEntries(
    tools.map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        inputSchema: jsonSchema<Record<string, unknown>>(definition.input as never, {
          validate: (value) => {
            if (Value.Check(definition.input, value)) return { success: true, value: value as Record<string, unknown> };
            const first = Value.Errors(definition.input, value).First();
            return { success: false, error: new Error(`${first?.path || "/"}: ${first?.message ?? "invalid input"}`) };
          },
        }),
        execute: async (input: Record<string, unknown>) => {
          const result = await runTool(definition, ctx, input).catch(() => ({
            failure: `The ${definition.name} tool failed; try again later.`,
          }));
          if ("failure" in result) throw new Error(result.failure);
          return result.output;
        },
      }),
    ]),
  );
}
