import type { ConditionsCtx } from "../conditions/verbs";
import type { Ctx } from "../context/ctx";
import type { HealthCtx } from "../health/profile";
import type { PapersCtx } from "../papers/verbs";

/** The service contexts a tool call runs with: the same verbs and arguments as the REST routes. */
export const healthCtx = (ctx: Ctx): HealthCtx => ({ sql: ctx.sql, accountId: ctx.accountId });

export const conditionsCtx = (ctx: Ctx): ConditionsCtx => ({
  sql: ctx.sql,
  meili: ctx.meili,
  indexPrefix: ctx.env.MEILI_INDEX_PREFIX,
});

export const papersCtx = (ctx: Ctx): PapersCtx => ({
  sql: ctx.sql,
  meili: ctx.meili,
  indexPrefix: ctx.env.MEILI_INDEX_PREFIX,
  maxPageSize: ctx.plans[ctx.plan].maxPageSize,
});

/** Annotation sets: reads of our own data, reads of third-party sources, and writes. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const READ_ONLY_OPEN = { ...READ_ONLY, openWorldHint: true };
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const WRITE_IDEMPOTENT = { ...WRITE, idempotentHint: true };
export const DELETE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
