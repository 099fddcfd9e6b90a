import type { GetPromptResult, PromptMessage, TextResourceContents } from "@modelcontextprotocol/server";
import type { Static, TObject } from "@sinclair/typebox";
import type { Feature } from "../../shared/auth/access";
import type { Scope } from "../../shared/auth/scopes";
import type { Ctx } from "../../shared/context/ctx";

/**
 * A prompt, defined once: its arguments as a TypeBox object of strings (MCP prompt arguments are
 * strings; the schema validates them and gives prompts/list its argument list), the scopes and plan
 * feature it needs, and how it builds its messages from the caller's data.
 */
export interface PromptDefinition<A extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  /** Every scope the data it reads needs. */
  scopes: Scope[];
  feature?: Feature;
  args: A;
  messages(ctx: Ctx, args: Static<A>): Promise<GetPromptResult>;
}

export function definePrompt<A extends TObject>(prompt: PromptDefinition<A>): PromptDefinition<A> {
  return prompt;
}

export const userText = (text: string): PromptMessage => ({ role: "user", content: { type: "text", text } });

export const userResource = (resource: TextResourceContents): PromptMessage => ({
  role: "user",
  content: { type: "resource", resource },
});

/** A bullet list, or `none` (so an empty list reads as an answer, not as missing text). */
export const bullets = (items: readonly string[], none: string) =>
  items.length === 0 ? none : items.map((item) => `- ${item}`).join("\n");

export const day = (timestamp: string) => timestamp.slice(0, 10);
