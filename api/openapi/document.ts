import type { InternalRoute } from "elysia";
import { SCOPES } from "../../shared/auth/scopes";
import { ERROR_KINDS } from "../../shared/core/errors";
import { type Operation, operationOf } from "./operation";

type Json = Record<string, unknown>;

/** Routes the document leaves out: CORS preflights and the CORS plugin's catch-all. */
const isDocumented = (route: Pick<InternalRoute, "method" | "path">) =>
  route.method !== "OPTIONS" && route.path !== "/*";

const DESCRIPTION = [
  "Paper search, a health assistant and a remote MCP server.",
  "",
  "**Authentication.** An API key in `Authorization: Bearer <key>` or in `x-api-key: <key>`. Both",
  "headers may be sent only with the same key (two different keys are 401). An `Authorization`",
  "header with another scheme (Basic, for a proxy in front) is ignored when `x-api-key` carries the",
  "key, and a 401 when it is the only credential; a malformed `Bearer` header is a 401. Every 401",
  "carries `WWW-Authenticate`. The website's paths (`/api/auth`, `/api/dashboard`, the `/api/…`",
  "mirrors) take its session cookie instead, and state-changing requests also `x-csrf-token`.",
  "",
  '**Errors** share one body, `{"error": {"code", "message", "requestId", "details?"}}`; each',
  "operation lists the statuses and codes it can answer with. A path answers a method it lacks with",
  "405 `METHOD_NOT_ALLOWED` and `Allow`; a path no route has, 404 `ROUTE_NOT_FOUND`.",
  "",
  "**Request bodies** are accepted in the media types an operation lists, and no other (415",
  "`UNSUPPORTED_MEDIA_TYPE` with `Accept`); an operation that lists none takes no body. A JSON body",
  'is read as JSON: `"1"` is a string where an integer is expected. No body takes a property named',
  "`__proto__` or `constructor`.",
  "",
  "**Query parameters.** An optional parameter sent empty (`?limit=`) counts as absent; a query",
  "string is text, so its integers are read from it.",
].join("\n");

/** Tag descriptions; a tag a route uses without one here fails the document test. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Service: "This document and its reference page.",
  System: "Liveness, readiness and Prometheus metrics.",
  Account: "The calling account: plan, limits and usage.",
  Papers: "arXiv paper metadata: title search, fielded search and lookup by id.",
  Health:
    "The health profile with consent, health logs and their entries, exports and summaries, lab panels and analyte history, symptom options.",
  "Health reference": "Medication labeling (RxNorm, openFDA) and conditions (MONDO).",
  "Health chat": "The health assistant: chat turns (JSON or a UI message stream), stored conversations, voice notes.",
  Chats: "Conversations: list, rename, pin, archive, delete, share.",
  Uploads: "Files for chat attachments: presigned uploads and their processing.",
  MCP: "The remote MCP server (streamable HTTP) and its discovery cards.",
  OAuth:
    "The OAuth 2.1 authorization server for MCP clients that cannot hold an API key: metadata, dynamic registration, authorization code with PKCE, tokens, revocation, the consent page.",
  Website: "The website's session API: sign-up, sign-in, the developer dashboard and the health mirrors.",
  "Website pages": "The website's HTML pages and bundled assets.",
};

const COMPONENTS: Json = {
  securitySchemes: {
    bearer: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer phk_…`." },
    apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An API key: `x-api-key: phk_…`." },
    oauth2: {
      type: "oauth2",
      description:
        "An OAuth access token for the MCP endpoint only (audience `<PUBLIC_URL>/api/mcp`). Register a client dynamically at `/oauth/register`; PKCE S256 is required.",
      flows: {
        authorizationCode: {
          authorizationUrl: "/oauth/authorize",
          tokenUrl: "/oauth/token",
          refreshUrl: "/oauth/token",
          scopes: SCOPES,
        },
      },
    },
    session: {
      type: "apiKey",
      in: "cookie",
      name: "sid",
      description: "The website session cookie (website paths only); changes also need `x-csrf-token`.",
    },
  },
  headers: {
    "X-Request-Id": {
      description: "The request's id (the client's own when it sent a plain one); error bodies repeat it.",
      schema: { type: "string" },
    },
    "WWW-Authenticate": {
      description:
        'The challenge: `Bearer realm="papers-health"` (with `error="invalid_token"` when a key was refused); on `/api/mcp` also `resource_metadata="<PUBLIC_URL>/.well-known/oauth-protected-resource/api/mcp"` (RFC 9728).',
      schema: { type: "string" },
    },
    "Retry-After": { description: "Seconds until a retry can succeed.", schema: { type: "integer", minimum: 0 } },
    Accept: {
      description: "On a 415: the media types the operation's body may have (absent when it takes no body).",
      schema: { type: "string" },
    },
  },
  schemas: {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message", "requestId"],
          properties: {
            code: { type: "string", enum: Object.keys(ERROR_KINDS) },
            message: { type: "string" },
            requestId: { type: "string" },
            details: {
              type: "array",
              items: {
                type: "object",
                required: ["in", "path", "message"],
                properties: {
                  in: { type: "string", enum: ["body", "query", "params", "headers", "cookie"] },
                  path: { type: "string", description: "A JSON pointer into that part of the request." },
                  message: { type: "string" },
                },
              },
            },
          },
        },
      },
    },
  },
};

/**
 * The OpenAPI 3.1 document, generated from the app's own routes: their TypeBox schemas, their
 * `detail`, the access policy and the error table. Nothing in it is written by hand beside the
 * code, so it cannot drift from what the routes do.
 */
export function openApiDocument(
  routes: readonly Pick<InternalRoute, "method" | "path" | "hooks">[],
  serverUrl: string,
) {
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Set<string>();
  for (const route of routes.filter(isDocumented)) {
    const { path, method, operation }: Operation = operationOf(route);
    paths[path] = { ...paths[path], [method]: operation };
    for (const tag of (operation.tags as string[] | undefined) ?? []) tags.add(tag);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Papers & Health API",
      version: "0.1.0",
      description: DESCRIPTION,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: serverUrl }],
    tags: [...tags].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    components: COMPONENTS,
  };
}
