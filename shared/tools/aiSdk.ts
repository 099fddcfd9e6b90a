import { Value } from "@sinclair/typebox/value";
import { jsonSchema, type ToolSet, tool } from "ai";
import { requireFeature } from "../auth/access";
import type { Ctx } from "../context/ctx";
import { AppError } from "../core/errors";
import type { AnyTool } from "./types";

/**
 * The chat adapter of the tool catalog: AI SDK tools that validate with the same TypeBox schema as
 * MCP and run the same service verbs. A client error (bad input, consent, not found) reaches the
 * model as the tool's error text so it can correct itself; anything else is reported without
 * internals.
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
          try {
            if (definition.feature) requireFeature(ctx.plans, ctx, definition.feature);
            return await definition.run(ctx, input as never);
          } catch (error) {
            if (error instanceof AppError && error.status < 500) throw new Error(error.message);
            if (error instanceof AppError && error.kind === "UPSTREAM_FAILED") throw new Error(error.message);
            ctx.log.error("chat tool failed", { requestId: ctx.requestId, tool: definition.name, error });
            throw new Error(`The ${definition.name} tool failed; try again later.`);
          }
        },
      }),
    ]),
  );
}
