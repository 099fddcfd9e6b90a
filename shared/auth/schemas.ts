import { type Static, Type as T } from "@sinclair/typebox";
import { PlanIdSchema } from "../core/plans";
import { Text } from "../core/text";

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/** GET /api/v1/account and the get_account tool. */
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

// The website's own endpoints: sign-up, sign-in and the developer dashboard.

const Email = Text({ format: "email", maxLength: 254, description: "Compared case-insensitively." });

export const SignUpSchema = T.Object(
  {
    email: Email,
    password: Text({
      minLength: PASSWORD_MIN,
      maxLength: PASSWORD_MAX,
      description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`,
    }),
  },
  { additionalProperties: false },
);
export type SignUpInput = Static<typeof SignUpSchema>;

export const SignInSchema = T.Object(
  { email: Email, password: Text({ minLength: 1, maxLength: PASSWORD_MAX }) },
  { additionalProperties: false },
);
export type SignInInput = Static<typeof SignInSchema>;

export const WebAccountSchema = T.Object({ id: T.String(), email: T.String(), plan: PlanIdSchema });
export type WebAccount = Static<typeof WebAccountSchema>;

export const SignedInSchema = T.Object({
  account: WebAccountSchema,
  csrfToken: T.String({ description: "Send it as `x-csrf-token` on every POST, PATCH and DELETE." }),
});

export const SessionSchema = T.Object({
  account: WebAccountSchema,
  csrfToken: T.String(),
  expiresAt: T.String({ format: "date-time", description: "When the session ends without further requests." }),
});

export const UsageSchema = T.Object({
  plan: PlanIdSchema,
  limit: T.Integer({ description: "Requests per rolling hour." }),
  used: T.Integer({ description: "Requests in the last hour (API keys and website together)." }),
  remaining: T.Integer(),
  resetsAt: T.Union([T.String({ format: "date-time" }), T.Null()], {
    description: "When the oldest counted request leaves the window; null when none is counted.",
  }),
});
export type Usage = Static<typeof UsageSchema>;

export const KeyListSchema = T.Object({
  keys: T.Array(
    T.Object({
      id: T.String(),
      prefix: T.String({ description: "The key's first characters, to recognise it." }),
      createdAt: T.String({ format: "date-time" }),
      lastUsedAt: T.Union([T.String({ format: "date-time" }), T.Null()]),
      revokedAt: T.Union([T.String({ format: "date-time" }), T.Null()]),
    }),
  ),
});
export type KeyList = Static<typeof KeyListSchema>;

export const NewKeySchema = T.Object({
  id: T.String(),
  key: T.String({ description: "The full key: shown this once, never stored." }),
  prefix: T.String(),
  createdAt: T.String({ format: "date-time" }),
});
export type NewKey = Static<typeof NewKeySchema>;

export const RevokedKeySchema = T.Object({ id: T.String(), revoked: T.Literal(true) });
export type RevokedKey = Static<typeof RevokedKeySchema>;

export const McpConfigSchema = T.Object({
  url: T.String(),
  config: T.Object({
    mcpServers: T.Record(
      T.String(),
      T.Object({ type: T.String(), url: T.String(), headers: T.Record(T.String(), T.String()) }),
    ),
  }),
});
export type McpConfig = Static<typeof McpConfigSchema>;

export const ConnectionListSchema = T.Object({
  connections: T.Array(
    T.Object({
      id: T.String({ description: "The grant's id; DELETE it to disconnect the application." }),
      clientId: T.String(),
      clientName: T.Union([T.String(), T.Null()], { description: "The name the application registered with." }),
      redirectHosts: T.Array(T.String(), { description: "Where the application receives its codes." }),
      scopes: T.Array(T.String(), { description: "What you allowed it." }),
      connectedAt: T.String({ format: "date-time" }),
      lastTokenAt: T.Union([T.String({ format: "date-time" }), T.Null()], {
        description: "When it last got a token (connecting or refreshing); null once none is live.",
      }),
    }),
  ),
});
export type ConnectionList = Static<typeof ConnectionListSchema>;

export const DisconnectedSchema = T.Object({ id: T.String(), revoked: T.Literal(true) });
export type Disconnected = Static<typeof DisconnectedSchema>;
