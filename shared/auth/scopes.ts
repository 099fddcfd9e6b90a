import type { Ctx } from "../context/ctx";

/**
 * OAuth scopes an MCP client may be granted. An API key holds them all; an OAuth access token holds
 * the ones its user consented to. Scopes narrow what a token may do; they never lift the plan or
 * consent rules (`health:*` still needs the Go plan and the profile's consent).
 */
export const SCOPES = {
  "papers:read": "Search and read papers, and the public references: conditions, medication labels, symptom options.",
  "account:read": "Read your account: plan, limits and usage.",
  "health:read": "Read your health profile, logs, lab results and uploads.",
  "health:write": "Create, change and delete your health profile, logs and entries.",
  chat: "Talk to the health assistant and read, rename, share and delete your chats.",
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/**
 * The refusal for a caller without `scope`, or undefined when it may go on. A caller without a
 * scope list (an API key, a website session, a worker) holds every scope. Callers ask `authorize`
 * (authorize.ts), which applies this rule first.
 */
export function missingScope(ctx: Pick<Ctx, "scopes">, scope: Scope): string | undefined {
  if (!ctx.scopes || ctx.scopes.has(scope)) return undefined;
  return `This needs the \`${scope}\` scope, which this OAuth token was not granted; reconnect and allow it.`;
}
