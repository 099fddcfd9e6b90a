import fc from "fast-check";

/** The part of JSON Schema our OpenAPI document and MCP tool list use. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  minProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** Text PostgreSQL cannot store: NUL, lone surrogates (the input guard refuses it). */
export const UNSTORABLE_TEXT = ["\u0000", "a\u0000b", "\ud800", "x\udfffy"] as const;

/** Text that has broken services before: control characters, injections, RTL, BOM, emoji. */
export const NASTY_TEXT = [
  "\u0007\u0008\u001b[31m",
  "\r\n\r\n",
  "\t",
  "\u200b",
  "\u202eevil",
  "\ufeff",
  "😀👍🏽",
  "'; drop table trackers; --",
  "' or '1'='1",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%00%ff",
  "$\u007bjndi:ldap://x}",
  "{{7*7}}",
  "\\",
  '"',
  "null",
  "undefined",
  "__proto__",
  "Ω≈ç√∫",
  "　",
] as const;

const HUGE = 100_000;
const MAX_DEPTH = 3;

/** `{"a": {"a": … }}` nested `depth` levels: deeper than any schema, cheap to stringify. */
export function deepObject(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

/** A value of every JSON type but `type` (and a few JavaScript-only surprises JSON turns into null). */
function wrongType(type: string | undefined): fc.Arbitrary<unknown> {
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.constantFrom("", "1", "true", "x".repeat(HUGE)),
    integer: fc.constantFrom(0, -1, 1.5, 2 ** 53 + 2, -1e308, 1e308),
    number: fc.constantFrom(0, -1e308, 1e308),
    boolean: fc.boolean(),
    array: fc.constantFrom([], [null], [[[]]], ["a", 1, true]),
    object: fc.constantFrom({}, { a: 1 }, deepObject(64)),
    null: fc.constant(null),
  };
  const others = Object.entries(all)
    .filter(([name]) => name !== type && !(type === "number" && name === "integer"))
    .map(([, arbitrary]) => arbitrary);
  return fc.oneof(...others);
}

function lengthWithin(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max: Math.min(max, min + 40) }));
}

/**
 * A string within the schema's length bounds: when `wild`, full of unusual characters (may still be
 * invalid by pattern); otherwise tame printable text, so one odd field is not hidden behind another.
 */
function boundaryString(schema: JsonSchema, wild: boolean): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 300, HUGE);
  const fit = (text: string) => (text.length > max ? text.slice(0, max) : text.padEnd(min, "x"));
  if (schema.pattern && schema.pattern !== "\\S") return fc.stringMatching(new RegExp(schema.pattern));
  const tame = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 30 }).map(fit);
  if (!wild) return tame;
  return fc.oneof(
    { weight: 8, arbitrary: tame },
    { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }).map(fit) },
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_TEXT).map(fit) },
    { weight: 1, arbitrary: fc.constantFrom(...UNSTORABLE_TEXT).map(fit) },
    { weight: 2, arbitrary: lengthWithin(min, max).map((length) => "é".repeat(length)) },
    // Within the bound in code points, up to twice over it in UTF-16 units (emoji, musical symbols).
    {
      weight: 2,
      arbitrary: fc
        .tuple(lengthWithin(min, max), fc.constantFrom("😀", "𝄞", "药"))
        .map(([length, char]) => char.repeat(length)),
    },
    {
      weight: 1,
      arbitrary: lengthWithin(min, max).chain((length) =>
        fc.string({ unit: "binary", minLength: length, maxLength: length }).map(fit),
      ),
    },
  );
}

function boundaryNumber(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1e6 : schema.exclusiveMinimum + 0.5);
  const max = schema.maximum ?? (schema.exclusiveMaximum === undefined ? 1e6 : schema.exclusiveMaximum - 0.5);
  const inside = integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true });
  return fc.oneof(
    fc.constantFrom(Math.ceil(min), Math.floor(max), 0).filter((n) => n >= min && n <= max),
    inside,
  );
}

/**
 * Real values for properties by name (lower case, without `_`), e.g. `chatid` → ids that exist, so
 * generated bodies get past "not found" and reach the service's own rules.
 */
export type Hints = Readonly<Record<string, readonly unknown[]>>;

export const hintOf = (hints: Hints, name: string) => hints[name.toLowerCase().replaceAll("_", "")] ?? [];

/**
 * Values at and inside the schema's bounds, with odd content: most reach the service. In an
 * object, one property at a time is `wild` (odd text); the others are tame.
 */
export function plausible(schema: JsonSchema, hints: Hints = {}, depth = 0, wild = true): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union)
    return fc.oneof(
      ...union.map((member) =>
        plausible({ ...schema, anyOf: undefined, oneOf: undefined, ...member }, hints, depth, wild),
      ),
    );
  switch (schema.type) {
    case "string":
      return schema.format === "integer" ? boundaryNumber(schema, true).map(String) : boundaryString(schema, wild);
    case "integer":
    case "number":
      return boundaryNumber(schema, schema.type === "integer");
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(depth >= MAX_DEPTH ? fc.constant("x") : plausible(schema.items ?? {}, hints, depth + 1, wild), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case "object":
      return objectBody(schema, hints, depth, wild);
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.constant(null));
  }
}

/** Values the schema rejects: wrong types, one past each bound, outside enums, huge strings. */
export function invalid(schema: JsonSchema, hints: Hints = {}, depth = 0): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [wrongType(schema.type === "string" && schema.format ? "" : schema.type)];
  if (schema.const !== undefined) options.push(fc.constantFrom("other", `${String(schema.const)} `, 1));
  if (schema.enum)
    options.push(fc.constantFrom("nope", "", String(schema.enum[0]).toUpperCase(), ` ${schema.enum[0]}`));
  if (schema.type === "string") {
    if (schema.maxLength !== undefined) options.push(fc.constant("y".repeat(schema.maxLength + 1)));
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant("z".repeat((schema.minLength as number) - 1)));
    if (schema.pattern === "\\S") options.push(fc.constantFrom(" ", "\t\n", "\u00a0".repeat(3)));
    options.push(fc.constant("w".repeat(HUGE + 1)));
  }
  if (schema.type === "integer" || schema.type === "number") {
    const bounds: number[] = [];
    if (schema.minimum !== undefined) bounds.push(schema.minimum - 1);
    if (schema.maximum !== undefined) bounds.push(schema.maximum + 1);
    if (schema.exclusiveMinimum !== undefined) bounds.push(schema.exclusiveMinimum);
    if (schema.exclusiveMaximum !== undefined) bounds.push(schema.exclusiveMaximum);
    if (schema.type === "integer") bounds.push(0.5, (schema.minimum ?? 0) + 0.25);
    if (bounds.length > 0) options.push(fc.constantFrom(...bounds));
  }
  if (schema.type === "array") {
    if (schema.maxItems !== undefined)
      options.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => "x")));
    if (schema.items && depth < MAX_DEPTH) options.push(invalid(schema.items, hints, depth + 1).map((item) => [item]));
  }
  if (schema.type === "object") options.push(brokenObject(schema, hints, depth));
  return fc.oneof(...options);
}

/** A string for a query parameter whose schema wants a number: the forms a parser may choke on. */
export const NUMERIC_TEXT = fc.constantFrom(
  "",
  " 5",
  "5 ",
  "1e3",
  "0x10",
  "NaN",
  "Infinity",
  "-0",
  "007",
  "1.0",
  "9".repeat(400),
  "+1",
  "1_000",
);

function objectBody(
  schema: JsonSchema,
  hints: Hints,
  depth: number,
  wild = true,
): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(schema.properties ?? {});
  if (!wild || names.length === 0) return objectModel(schema, hints, depth, undefined);
  return fc.constantFrom(...names).chain((wildName) => objectModel(schema, hints, depth, wildName));
}

/**
 * The object's properties: required ones always, the wild one always, other optional ones a third
 * of the time (left out as `undefined`, which JSON drops), so aliases and combinations rarely clash.
 */
function objectModel(
  schema: JsonSchema,
  hints: Hints,
  depth: number,
  wildName: string | undefined,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const generated = depth >= MAX_DEPTH ? fc.constant("x") : plausible(property, hints, depth + 1, name === wildName);
    const hint = hintOf(hints, name);
    const value =
      hint.length === 0
        ? generated
        : fc.oneof(
            {
              weight: 3,
              arbitrary:
                property.type === "array"
                  ? fc.array(fc.constantFrom(...hint), { minLength: 1, maxLength: 2 })
                  : fc.constantFrom(...hint),
            },
            { weight: 1, arbitrary: generated },
          );
    const always = required.has(name) || name === wildName;
    model[name] = always
      ? value
      : fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
  }
  return fc
    .record(model)
    .map((value) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)));
}

/** An object that breaks exactly one rule: a missing required field, an unknown field, one bad value. */
function brokenObject(schema: JsonSchema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  const required = (schema.required ?? []).filter((name) => name in (schema.properties ?? {}));
  const names = Object.keys(schema.properties ?? {});
  const options: fc.Arbitrary<unknown>[] = [
    objectBody(schema, hints, depth).chain((value) =>
      fc
        .constantFrom("user_id", "__proto__", "constructor", "extra", "", "a".repeat(1000), "k".repeat(300_000))
        .map((name) => ({ ...value, [name]: { admin: true } })),
    ),
  ];
  if (required.length > 0) {
    options.push(
      objectBody(schema, hints, depth).chain((value) =>
        fc
          .constantFrom(...required)
          .map((name) => Object.fromEntries(Object.entries(value).filter(([key]) => key !== name))),
      ),
    );
  }
  if (names.length > 0 && depth < MAX_DEPTH) {
    options.push(
      fc
        .constantFrom(...names)
        .chain((name) =>
          fc.tuple(
            objectBody(schema, hints, depth),
            fc.constant(name),
            invalid(schema.properties?.[name] ?? {}, hints, depth + 1),
          ),
        )
        .map(([value, name, bad]) => ({ ...value, [name]: bad })),
    );
  }
  if ((schema.minProperties ?? 0) > 0 || required.length > 0) options.push(fc.constant({}));
  return fc.oneof(...options);
}
