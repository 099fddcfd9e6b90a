import { AppError } from "../core/errors";
import type { PlanTable } from "../core/plans";
import type { Principal } from "./keyCache";

export type Feature = "health";

/** The plan rule. Callers ask `authorize` (authorize.ts), which applies it after the scope. */
export function requireFeature(plans: PlanTable, principal: Pick<Principal, "plan">, feature: Feature): void {
  if (!plans[principal.plan][feature]) {
    throw new AppError(
      "PLAN_REQUIRED",
      `The ${principal.plan} plan does not include ${feature}; upgrade to go or above.`,
    );
  }
}
