import { Elysia, t } from "elysia";
import {
  createAccountKey,
  listAccountKeys,
  mcpClientConfig,
  revokeAccountKey,
  usageThisHour,
} from "../../../shared/auth/dashboard";
import type { Deps } from "../../../shared/context/deps";
import { publicUrl } from "../../../shared/core/env";
import { sessionOf } from "../../plugins/session";
import { SESSION_SECURITY } from "../mount";
import { KeyListSchema, McpConfigSchema, NewKeySchema, UsageSchema } from "./model";

const detail = (summary: string, description?: string) => ({
  tags: ["Website"],
  summary,
  ...(description ? { description } : {}),
  security: SESSION_SECURITY,
});

function dashboardDeps(deps: Deps) {
  return { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX, plans: deps.plans };
}

/** The developer dashboard of the signed-in account. None of these requests counts against the hourly limit. */
export function websiteDashboardRoutes(deps: Deps) {
  return new Elysia({ name: "routes/website/dashboard" })
    .get("/api/dashboard/usage", ({ request }) => usageThisHour(dashboardDeps(deps), sessionOf(request)), {
      response: UsageSchema,
      detail: detail(
        "Plan and requests used this hour",
        "Read from the same rolling-hour counter the API keys spend; reading it spends nothing.",
      ),
    })
    .get("/api/dashboard/keys", ({ request }) => listAccountKeys(dashboardDeps(deps), sessionOf(request).accountId), {
      response: KeyListSchema,
      detail: detail("The account's API keys, revoked ones included"),
    })
    .post(
      "/api/dashboard/keys",
      ({ request, set }) => {
        set.status = 201;
        return createAccountKey(dashboardDeps(deps), sessionOf(request).accountId);
      },
      {
        response: { 201: NewKeySchema },
        detail: detail("Create an API key", "The full key is in this response only. At most 25 active keys (409)."),
      },
    )
    .delete(
      "/api/dashboard/keys/:id",
      ({ request, params }) => revokeAccountKey(dashboardDeps(deps), sessionOf(request).accountId, params.id),
      {
        params: t.Object({ id: t.String() }),
        response: t.Object({ id: t.String(), revoked: t.Literal(true) }),
        detail: detail("Revoke an API key", "It stops working at once. Another account's key is 404."),
      },
    )
    .get(
      "/api/dashboard/mcp",
      ({ request }) => mcpClientConfig(deps.env.PUBLIC_URL ? publicUrl(deps.env) : new URL(request.url).origin),
      {
        response: McpConfigSchema,
        detail: detail("An MCP client configuration for this server", "Replace <YOUR_API_KEY> with a key."),
      },
    );
}
