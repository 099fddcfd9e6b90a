import { Elysia } from "elysia";
import { describeAccount } from "../../shared/auth/describeAccount";
import { AccountInfoSchema } from "../../shared/auth/schemas";
import type { Deps } from "../../shared/context/deps";
import { callerOf } from "../requestState";

export function accountRoutes(deps: Deps) {
  return new Elysia({ name: "routes/account" }).get(
    "/api/v1/account",
    ({ request }) => {
      const { principal, rate } = callerOf(request);
      return describeAccount({ plans: deps.plans, accountId: principal.accountId, plan: principal.plan, rate });
    },
    {
      response: AccountInfoSchema,
      detail: {
        tags: ["Account"],
        summary: "The caller's plan, limits and remaining hourly quota",
      },
    },
  );
}
