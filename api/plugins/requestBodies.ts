import { TransformKind } from "@sinclair/typebox";
import type { InternalRoute } from "elysia";

/**
 * What a route takes as its request body, read from its own declaration, so the OpenAPI document
 * (api/openapi/operation.ts) and the checks on requests cannot differ: the media types it lists,
 * and that a JSON body's numbers and booleans are JSON's own.
 */

type Json = Record<string, unknown>;
type Hooks = {
  body?: unknown;
  parse?: { fn: unknown }[];
  detail?: { requestBody?: unknown; responses?: unknown };
};

/**
 * - `json`: a schema body, parsed by Elysia as JSON;
 * - `multipart`: a schema body with a multipart parser (files);
 * - `form`: a schema body an HTML form posts (`application/x-www-form-urlencoded`);
 * - `raw`: a route that reads its own body (`parse: "none"`) and documents it;
 * - undefined: no body.
 */
export type BodyKind = "json" | "multipart" | "form" | "raw" | undefined;

const hooksOf = (route: Pick<InternalRoute, "hooks">) => route.hooks as unknown as Hooks;

/** Whether any of the route's documented answers is an HTML page. */
function answersWithPages(hooks: Hooks): boolean {
  const responses = Object.values((hooks.detail?.responses as Record<string, Json> | undefined) ?? {});
  return responses.some((response) => Object.hasOwn((response.content as Json | undefined) ?? {}, "text/html"));
}

export function bodyKindOf(routeHooks: object): BodyKind {
  const hooks = routeHooks as Hooks;
  const parsers = (hooks.parse ?? []).map((parser) => parser.fn);
  if (parsers.includes("none")) return hooks.detail?.requestBody ? "raw" : undefined;
  if (!hooks.body) return undefined;
  if (parsers.includes("formdata") || parsers.includes("multipart/form-data")) return "multipart";
  // A page's route takes what the page's <form> posts: browsers send it url-encoded.
  if (parsers.includes("urlencoded") || parsers.includes("application/x-www-form-urlencoded")) return "form";
  return answersWithPages(hooks) ? "form" : "json";
}

const MEDIA_OF_KIND = {
  json: "application/json",
  multipart: "multipart/form-data",
  form: "application/x-www-form-urlencoded",
} as const;

/**
 * The media types a route's body may have, as its document lists them: those it declares itself
 * (`detail.requestBody`), else the one of its body kind; none for a route without a body.
 */
export function requestMediaTypes(routeHooks: object): string[] {
  const hooks = routeHooks as Hooks;
  const declared = (hooks.detail?.requestBody as { content?: Json } | undefined)?.content;
  if (declared) return Object.keys(declared);
  const kind = bodyKindOf(hooks);
  return kind && kind !== "raw" ? [MEDIA_OF_KIND[kind]] : [];
}

/**
 * The media types the media-type check holds a route's body to (mediaTypes.ts); undefined for a
 * route that documents its own 415 and answers it itself (the MCP endpoint, with a JSON-RPC error).
 */
export function checkedMediaTypes(routeHooks: object): string[] | undefined {
  const responses = (routeHooks as Hooks).detail?.responses as Record<string, unknown> | undefined;
  return responses && Object.hasOwn(responses, "415") ? undefined : requestMediaTypes(routeHooks);
}

/** Elysia's text-reading forms of a number or boolean (`t.Integer`, `t.Numeric`, `t.BooleanString`). */
const TEXT_FORMATS = new Set(["integer", "numeric", "boolean"]);

/**
 * The places in a schema that take a number or boolean as its text: Elysia's `t.Integer`,
 * `t.Numeric`, `t.BooleanString`, `t.Date` and the like are transforms over a string branch, made
 * for query strings. Returned as JSON pointers into a value of the schema.
 */
export function textReadingFields(schema: unknown, path = ""): string[] {
  if (!schema || typeof schema !== "object") return [];
  const node = schema as Json & { [TransformKind]?: unknown };
  const members = [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])] as Json[];
  const textForm = members.some((member) => member.type === "string" && TEXT_FORMATS.has(String(member.format)));
  if (node[TransformKind] !== undefined || textForm) return [path || "/"];
  const found: string[] = [];
  for (const [name, child] of Object.entries((node.properties as Json | undefined) ?? {})) {
    found.push(...textReadingFields(child, `${path}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`));
  }
  for (const key of ["items", "additionalProperties"]) found.push(...textReadingFields(node[key], `${path}/*`));
  for (const member of members) found.push(...textReadingFields(member, path));
  return found;
}

/**
 * JSON bodies are not coerced: a JSON number is a number and `"1"` is a string. Refuses, when the
 * app is assembled, a route whose JSON body schema would read a number or boolean from text
 * (query strings may, being text; a multipart or form body is text too).
 */
export function assertStrictJsonBodies(routes: readonly Pick<InternalRoute, "method" | "path" | "hooks">[]): void {
  for (const route of routes) {
    const hooks = hooksOf(route);
    if (bodyKindOf(hooks) !== "json") continue;
    const root = (hooks.body ?? {}) as Json;
    // Elysia reads a body that is a lone number or boolean from text as well (its root coercion).
    const primitive = ["number", "integer", "boolean"].includes(String(root.type)) ? ["/"] : [];
    const fields = [...primitive, ...textReadingFields(hooks.body)];
    if (fields.length > 0) {
      throw new Error(
        `${route.method} ${route.path}: its JSON body reads ${fields.join(", ")} from text; use TypeBox's Type.Integer, Type.Number or Type.Boolean (inside an object), not Elysia's t.Integer, t.Numeric or t.BooleanString`,
      );
    }
  }
}
