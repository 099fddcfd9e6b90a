import { Type as T } from "@sinclair/typebox";
import { AppError } from "../errors";
import { AccountInfoSchema, describeAccount } from "../services/account";
import { defineTool } from "./types";

export const getAccountTool = defineTool({
  name: "get_account",
  title: "Plan and remaining quota",
  description:
    "Returns the caller's plan, its limits (requests per hour, largest paper-search page, whether health tools are included) and how many requests are left in the rolling hour.",
  input: T.Object({}, { additionalProperties: false }),
  output: AccountInfoSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (ctx) => {
    if (!ctx.rate) throw new AppError("BAD_REQUEST", "The account tool answers only on a direct API or MCP request.");
    return describeAccount(ctx.deps.plans, ctx.principal, ctx.rate);
  },
  render: (info) =>
    `Plan ${info.plan}: ${info.usage.remaining} of ${info.usage.limit} requests left this hour; health ${info.limits.health ? "included" : "not included"}.`,
});
