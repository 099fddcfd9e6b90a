import { type Static, Type as T } from "@sinclair/typebox";
import type { PlanTable } from "../core/plans";
import { PlanIdSchema } from "../core/plans";
import type { RateDecision } from "../ratelimit/limiter";
import type { Principal } from "./apiKeys";

export const AccountInfoSchema = T.Object({
  accountId: T.String({ format: "uuid" }),
  plan: PlanIdSchema,
  limits: T.Object({
    requestsPerHour: T.Integer(),
    maxPageSize: T.Integer({ description: "Largest paper-search page this plan may ask for." }),
    health: T.Boolean({ description: "Whether the plan includes the health endpoints and tools." }),
  }),
  usage: T.Object({
    limit: T.Integer(),
    remaining: T.Integer({ description: "Requests left in the rolling hour, after this one." }),
    resetSeconds: T.Integer({ description: "Seconds until the oldest counted request leaves the window." }),
  }),
});
export type AccountInfo = Static<typeof AccountInfoSchema>;

/** The caller's plan, its limits and what is left of this hour's budget. */
export function describeAccount(
  plans: PlanTable,
  principal: Pick<Principal, "accountId" | "plan">,
  rate: RateDecision,
): AccountInfo {
  return {
    accountId: principal.accountId,
    plan: principal.plan,
    limits: { ...plans[principal.plan] },
    usage: { limit: rate.limit, remaining: rate.remaining, resetSeconds: Math.ceil(rate.resetMs / 1000) },
  };
}
