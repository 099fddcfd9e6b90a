import type { PlanId } from "../core/plans";
import type { RateDecision } from "../ratelimit/limiter";
import type { Deps } from "./deps";

/**
 * What every verb runs with: the process's clients (`Deps`, spread in, so a verb reads `ctx.sql`)
 * plus the request it serves. REST routes, MCP tools, chat tools and job processors all build it
 * with `contextFor`, so a verb never knows which surface called it.
 */
export interface SystemCtx extends Deps {
  /** The request's id (REST and MCP), or the job's (workers): it ties log lines together. */
  requestId: string;
}

/** A verb that acts for an account: who is asking, and on which plan. */
export interface Ctx extends SystemCtx {
  accountId: string;
  plan: PlanId;
  /** This request's rate decision (REST and MCP); absent on a worker. */
  rate?: RateDecision;
  /** The OAuth scopes an MCP token was granted (see shared/auth/scopes.ts); absent: every scope. */
  scopes?: ReadonlySet<string>;
}

export interface Caller {
  accountId: string;
  plan: PlanId;
  scopes?: ReadonlySet<string>;
}

export function contextFor(deps: Deps, requestId: string): SystemCtx;
export function contextFor(deps: Deps, requestId: string, caller: Caller, rate?: RateDecision): Ctx;
export function contextFor(deps: Deps, requestId: string, caller?: Caller, rate?: RateDecision): SystemCtx | Ctx {
  if (!caller) return { ...deps, requestId };
  return {
    ...deps,
    requestId,
    accountId: caller.accountId,
    plan: caller.plan,
    ...(rate ? { rate } : {}),
    ...(caller.scopes ? { scopes: caller.scopes } : {}),
  };
}
