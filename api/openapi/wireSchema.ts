/**
 * A route's TypeBox schema as the JSON Schema (2020-12) of what travels on the wire. TypeBox
 * schemas already are JSON Schema; what changes:
 * - Elysia's `t.Integer`/`t.Numeric`/`t.Boolean` accept the number's text too (query strings arrive
 *   as text): a union of `{type: string, format: integer|numeric|boolean}` with the real type. The
 *   document states the real type, which is what a client sends.
 * - `t.File` is a binary string with a `"File"` default: a part of any media type.
 * - Symbol keys (TypeBox's `Kind`) and `undefined` go, as in any JSON copy.
 */
type Json = Record<string, unknown>;

const TEXT_FORMATS = new Set(["integer", "numeric", "boolean", "ObjectString", "ArrayString"]);

export function wireSchema(schema: unknown): Json {
  return clean(JSON.parse(JSON.stringify(schema ?? {}))) as Json;
}

function isTextForm(branch: unknown): boolean {
  const candidate = branch as Json;
  return candidate?.type === "string" && TEXT_FORMATS.has(String(candidate.format));
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== "object") return node;
  let schema = node as Json;
  const branches = schema.anyOf as unknown[] | undefined;
  if (Array.isArray(branches) && branches.some(isTextForm)) {
    const rest = branches.filter((branch) => !isTextForm(branch));
    const { anyOf: _, ...outer } = schema;
    schema = rest.length === 1 ? { ...outer, ...(rest[0] as Json) } : { ...outer, anyOf: rest };
  }
  if (schema.type === "string" && schema.format === "binary") {
    const { format: _, default: __, ...file } = schema;
    schema = { ...file, contentMediaType: "application/octet-stream" };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, clean(value)]));
}
