import type { ConditionsCtx } from "../services/conditions";
import type { HealthCtx } from "../services/healthProfile";
import type { PapersCtx } from "../services/papers";
import type { ToolContext } from "./types";

/** The service contexts a tool call runs with: the same verbs and arguments as the REST routes. */
export const healthCtx = (ctx: ToolContext): HealthCtx => ({ sql: ctx.deps.sql, accountId: ctx.principal.accountId });

export const conditionsCtx = (ctx: ToolContext): ConditionsCtx => ({
  sql: ctx.deps.sql,
  meili: ctx.deps.meili,
  indexPrefix: ctx.deps.env.MEILI_INDEX_PREFIX,
});

export const papersCtx = (ctx: ToolContext): PapersCtx => ({
  sql: ctx.deps.sql,
  meili: ctx.deps.meili,
  indexPrefix: ctx.deps.env.MEILI_INDEX_PREFIX,
  maxPageSize: ctx.deps.plans[ctx.principal.plan].maxPageSize,
});

/** Annotation sets: reads of our own data, reads of third-party sources, and writes. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const READ_ONLY_OPEN = { ...READ_ONLY, openWorldHint: true };
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const WRITE_IDEMPOTENT = { ...WRITE, idempotentHint: true };
export const DELETE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
