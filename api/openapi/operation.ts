import type { DocumentDecoration, InternalRoute } from "elysia";
import { ERROR_KINDS, type ErrorKind } from "../../shared/core/errors";
import { policyFor } from "../plugins/access";
import { GUARDED_PATH } from "../plugins/hostGuard";
import { bodyKindOf, requestMediaTypes } from "../plugins/requestBodies";
import { declaredFailures, FAILURES_KEY } from "./declare";
import { byStatus, failuresOf } from "./failures";
import { wireSchema } from "./wireSchema";

type Json = Record<string, unknown>;
type Hooks = Json & { detail?: DocumentDecoration; parse?: { fn: unknown }[]; body?: unknown };

export interface Operation {
  path: string;
  method: string;
  operation: Json;
}

const X_REQUEST_ID = { $ref: "#/components/headers/X-Request-Id" };

/** `:name` → `{name}`; a trailing `*` takes the name of the one path parameter the route declares. */
export function openApiPath(path: string, detail: DocumentDecoration | undefined): string {
  let result = path.replace(/:(\w+)\??/g, "{$1}");
  if (result.endsWith("*")) {
    const declared = (detail?.parameters as Json[] | undefined)?.filter((p) => p.in === "path") ?? [];
    if (declared.length !== 1) throw new Error(`${path}: a wildcard route must declare its one path parameter`);
    result = `${result.slice(0, -1)}{${declared[0]?.name}}`;
  }
  return result;
}

/** `GET /api/v1/health/trackers/{trackerId}` → `getHealthTrackersByTrackerId`; website paths start `web`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1(?=\/|$)/, "")
    .replace(/^\/api(?=\/|$)/, "/web")
    .split(/[/.\-_]/)
    .filter(Boolean)
    .map((part) => (part.startsWith("{") ? `by-${part.slice(1, -1)}` : part))
    .flatMap((part) => part.split("-"));
  const camel = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
  return `${method.toLowerCase()}${camel || "Root"}`;
}

function parameters(hooks: Hooks, openPath: string): Json[] {
  const list: Json[] = [];
  const params = wireSchema(hooks.params);
  const pathNames = [...openPath.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const declared = (hooks.detail?.parameters as Json[] | undefined) ?? [];
  for (const name of pathNames) {
    if (declared.some((p) => p.in === "path" && p.name === name)) continue;
    const schema = (params.properties as Record<string, Json> | undefined)?.[name] ?? { type: "string" };
    list.push({ name, in: "path", required: true, schema });
  }
  const query = wireSchema(hooks.query);
  const required = new Set((query.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries((query.properties as Record<string, Json> | undefined) ?? {})) {
    const { description, ...rest } = schema;
    list.push({
      name,
      in: "query",
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    });
  }
  return [...list, ...declared];
}

function requestBody(hooks: Hooks): Json | undefined {
  if (hooks.detail?.requestBody) return hooks.detail.requestBody as unknown as Json;
  const [media] = requestMediaTypes(hooks);
  if (!media) return undefined;
  return { required: true, content: { [media]: { schema: wireSchema(hooks.body) } } };
}

function isSchema(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  return (
    Object.getOwnPropertySymbols(value).length > 0 ||
    ["type", "anyOf", "oneOf", "allOf", "$ref", "const"].some((k) => k in value)
  );
}

function successResponses(hooks: Hooks): Record<string, Json> {
  const declared = (hooks.response ?? undefined) as Json | undefined;
  const schemas: [string, unknown][] = !declared
    ? []
    : isSchema(declared)
      ? [["200", declared]]
      : Object.entries(declared);
  const responses: Record<string, Json> = {};
  for (const [status, schema] of schemas) {
    responses[status] = {
      description: "Success.",
      headers: { "X-Request-Id": X_REQUEST_ID },
      content: { "application/json": { schema: wireSchema(schema) } },
    };
  }
  // A declared response adds to the schema's (another media type, headers) or stands alone.
  for (const [status, response] of Object.entries((hooks.detail?.responses as unknown as Record<string, Json>) ?? {})) {
    const base = responses[status] ?? { description: "Success.", headers: { "X-Request-Id": X_REQUEST_ID } };
    const content = { ...(base.content as Json | undefined), ...(response.content as Json | undefined) };
    responses[status] = {
      ...base,
      ...response,
      headers: { ...(base.headers as Json), ...(response.headers as Json | undefined) },
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  return responses;
}

const ERROR_HEADERS: Partial<Record<number, Json>> = {
  401: { "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" } },
  415: { Accept: { $ref: "#/components/headers/Accept" } },
  429: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
  503: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
};

/** One error response: the shared body, with `code` narrowed to the kinds this status carries here. */
function errorResponse(status: number, kinds: readonly ErrorKind[]): Json {
  return {
    description: kinds.map((kind) => `\`${kind}\`: ${ERROR_KINDS[kind].summary}`).join(" "),
    headers: { "X-Request-Id": X_REQUEST_ID, ...ERROR_HEADERS[status] },
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            { type: "object", properties: { error: { type: "object", properties: { code: { enum: kinds } } } } },
          ],
        },
      },
    },
  };
}

/** Who may call, from the access policy: an API key in either header, the website session, or anyone. */
function securityOf(method: string, path: string): Json[] {
  const policy = policyFor(method, path);
  if (!policy || policy.anonymous) return [];
  if (policy.auth === "session") return [{ session: [] }];
  // The MCP endpoint also takes OAuth access tokens; each tool names the scope it needs.
  if (path === GUARDED_PATH) return [{ bearer: [] }, { apiKey: [] }, { oauth2: [] }];
  return [{ bearer: [] }, { apiKey: [] }];
}

/** The OpenAPI operation of one route, from its schemas, its detail and the rules it passes. */
export function operationOf(route: Pick<InternalRoute, "method" | "path" | "hooks">): Operation {
  const hooks = route.hooks as unknown as Hooks;
  // The access policy decides who may call; a route's own `security` only restates it.
  const { [FAILURES_KEY]: _, hide: __, security: ___, ...detail } = (hooks.detail ?? {}) as Json;
  const path = openApiPath(route.path, hooks.detail);
  const body = bodyKindOf(hooks);
  const kinds = failuresOf({
    method: route.method,
    path: route.path,
    body,
    media: requestMediaTypes(hooks),
    declared: declaredFailures(hooks.detail),
  });
  const responses = successResponses(hooks);
  if (Object.keys(responses).length === 0) throw new Error(`${route.method} ${route.path} documents no response`);
  // A status the route declares itself keeps the route's description and bodies (MCP's JSON-RPC
  // errors); a page it declares (the OAuth flow's) gains the error body the rules before it answer.
  for (const [status, group] of byStatus(kinds)) {
    const own = responses[String(status)] as Json | undefined;
    const content = own?.content as Json | undefined;
    if (!own) responses[String(status)] = errorResponse(status, group);
    else if (content && !content["application/json"]) {
      const json = (errorResponse(status, group).content as Json)["application/json"];
      responses[String(status)] = { ...own, content: { ...content, "application/json": json } };
    }
  }
  const params = parameters(hooks, path);
  const operation: Json = {
    operationId: operationIdOf(route.method, path),
    ...detail,
    security: securityOf(route.method, route.path),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(requestBody(hooks) ? { requestBody: requestBody(hooks) } : {}),
    responses,
  };
  return { path, method: route.method.toLowerCase(), operation };
}
