import { Elysia } from "elysia";
import { AccountInfoSchema, describeAccount } from "../../shared/auth/accountInfo";
import type { PlanTable } from "../../shared/core/plans";
import { callerOf } from "../requestState";

export function accountRoutes(plans: PlanTable) {
  return new Elysia({ name: "routes/account" }).get(
    "/api/v1/account",
    ({ request }) => {
      const { principal, rate } = callerOf(request);
      return describeAccount(plans, principal, rate);
    },
    {
      response: AccountInfoSchema,
      detail: {
        tags: ["Account"],
        summary: "The caller's plan, limits and remaining hourly quota",
        security: [{ bearer: [] }],
      },
    },
  );
}
