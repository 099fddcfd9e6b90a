import { Elysia, t } from "elysia";
import {
  createAccountKey,
  listAccountKeys,
  MAX_ACTIVE_KEYS,
  mcpClientConfig,
  revokeAccountKey,
  usageThisHour,
} from "../../../shared/auth/dashboard";
import { disconnect, listConnections } from "../../../shared/auth/oauth/connections";
import {
  ConnectionListSchema,
  DisconnectedSchema,
  KeyListSchema,
  McpConfigSchema,
  NewKeySchema,
  RevokedKeySchema,
  UsageSchema,
} from "../../../shared/auth/schemas";
import { type Ctx, contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { Text } from "../../../shared/core/text";
import { failures } from "../../openapi/declare";
import { sessionOf } from "../../plugins/session";
import { stateOf } from "../../requestState";

const detail = (summary: string, description?: string, ...kinds: ErrorKind[]) =>
  failures({ tags: ["Website"], summary, ...(description ? { description } : {}) }, ...kinds);

/**
 * The signed-in account's context. Dashboard paths spend no hourly slot, so there is no rate
 * decision for `ctxOf`; the session names the account.
 */
function sessionCtx(deps: Deps, request: Request): Ctx {
  return contextFor(deps, stateOf(request).requestId, sessionOf(request));
}

/** The developer dashboard of the signed-in account. None of these requests counts against the hourly limit. */
export function websiteDashboardRoutes(deps: Deps) {
  return new Elysia({ name: "routes/website/dashboard" })
    .get("/api/dashboard/usage", ({ request }) => usageThisHour(sessionCtx(deps, request)), {
      response: UsageSchema,
      detail: detail(
        "Plan and requests used this hour",
        "Read from the same rolling-hour counter the API keys spend; reading it spends nothing.",
      ),
    })
    .get("/api/dashboard/keys", ({ request }) => listAccountKeys(sessionCtx(deps, request)), {
      response: KeyListSchema,
      detail: detail("The account's API keys, revoked ones included"),
    })
    .post(
      "/api/dashboard/keys",
      ({ request, set }) => {
        set.status = 201;
        return createAccountKey(sessionCtx(deps, request));
      },
      {
        response: { 201: NewKeySchema },
        detail: detail(
          "Create an API key",
          `The full key is in this response only. At most ${MAX_ACTIVE_KEYS} active keys (409).`,
          "CONFLICT",
        ),
      },
    )
    .delete(
      "/api/dashboard/keys/:id",
      ({ request, params }) => revokeAccountKey(sessionCtx(deps, request), { keyId: params.id }),
      {
        params: t.Object({ id: t.String() }),
        response: RevokedKeySchema,
        detail: detail("Revoke an API key", "It stops working at once. Another account's key is 404.", "NOT_FOUND"),
      },
    )
    .get("/api/dashboard/connections", ({ request }) => listConnections(sessionCtx(deps, request)), {
      response: ConnectionListSchema,
      detail: detail(
        "Applications connected over OAuth",
        "One entry per authorization (grant): the MCP clients this account allowed, with their scopes.",
      ),
    })
    .delete(
      "/api/dashboard/connections/:id",
      ({ request, params }) => disconnect(sessionCtx(deps, request), { id: params.id }),
      {
        params: t.Object({ id: Text({ maxLength: 128 }) }),
        response: DisconnectedSchema,
        detail: detail(
          "Disconnect an application",
          "Revokes its grant and every token issued under it; its next request is refused. Another account's is 404.",
          "NOT_FOUND",
        ),
      },
    )
    .get("/api/dashboard/mcp", ({ request }) => mcpClientConfig(deps, { origin: new URL(request.url).origin }), {
      response: McpConfigSchema,
      detail: detail("An MCP client configuration for this server", "Replace <YOUR_API_KEY> with a key."),
    });
}
