import { t } from "elysia";
import { PASSWORD_MAX, PASSWORD_MIN } from "../../../shared/auth/webAuth";
import { PlanIdSchema } from "../../../shared/core/plans";

/** Shapes of the website's own endpoints (sign-in and the developer dashboard). */
const Email = t.String({ format: "email", maxLength: 254, description: "Compared case-insensitively." });

export const SignUpSchema = t.Object(
  {
    email: Email,
    password: t.String({
      minLength: PASSWORD_MIN,
      maxLength: PASSWORD_MAX,
      description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`,
    }),
  },
  { additionalProperties: false },
);

export const SignInSchema = t.Object(
  { email: Email, password: t.String({ minLength: 1, maxLength: PASSWORD_MAX }) },
  { additionalProperties: false },
);

export const WebAccountSchema = t.Object({ id: t.String(), email: t.String(), plan: PlanIdSchema });

export const SignedInSchema = t.Object({
  account: WebAccountSchema,
  csrfToken: t.String({ description: "Send it as `x-csrf-token` on every POST, PATCH and DELETE." }),
});

export const SessionSchema = t.Object({
  account: WebAccountSchema,
  csrfToken: t.String(),
  expiresAt: t.String({ format: "date-time", description: "When the session ends without further requests." }),
});

export const UsageSchema = t.Object({
  plan: PlanIdSchema,
  limit: t.Integer({ description: "Requests per rolling hour." }),
  used: t.Integer({ description: "Requests in the last hour (API keys and website together)." }),
  remaining: t.Integer(),
  resetsAt: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "When the oldest counted request leaves the window; null when none is counted.",
  }),
});

export const KeyListSchema = t.Object({
  keys: t.Array(
    t.Object({
      id: t.String(),
      prefix: t.String({ description: "The key's first characters, to recognise it." }),
      createdAt: t.String({ format: "date-time" }),
      lastUsedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
      revokedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
    }),
  ),
});

export const NewKeySchema = t.Object({
  id: t.String(),
  key: t.String({ description: "The full key: shown this once, never stored." }),
  prefix: t.String(),
  createdAt: t.String({ format: "date-time" }),
});

export const McpConfigSchema = t.Object({
  url: t.String(),
  config: t.Object({
    mcpServers: t.Record(
      t.String(),
      t.Object({ type: t.String(), url: t.String(), headers: t.Record(t.String(), t.String()) }),
    ),
  }),
});
