import type { Ctx } from "../context/ctx";
import type { RateDecision } from "../ratelimit/limiter";
import type { AccountInfo } from "./schemas";

/**
 * The caller's plan, its limits and what is left of this hour's budget. The budget is the
 * request's own rate decision, so only a request that took a slot (REST, MCP) can be described.
 */
export function describeAccount(ctx: Pick<Ctx, "plans" | "accountId" | "plan"> & { rate: RateDecision }): AccountInfo {
  const { rate } = ctx;
  return {
    accountId: ctx.accountId,
    plan: ctx.plan,
    limits: { ...ctx.plans[ctx.plan] },
    usage: { limit: rate.limit, remaining: rate.remaining, resetSeconds: Math.ceil(rate.resetMs / 1000) },
  };
}
