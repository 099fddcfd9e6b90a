import { FormatRegistry, Kind, type StringOptions, Type as T, type TUnsafe, TypeRegistry } from "@sinclair/typebox";
import { DefaultErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";
import { compiledRegExp } from "./regex";

/**
 * A string whose `minLength` and `maxLength` count Unicode code points, as JSON Schema defines
 * them, so the service and the published schema agree: a password of nine emoji is nine
 * characters, not eighteen. TypeBox's own `String` counts UTF-16 code units. The JSON form is a
 * plain `{type: "string", …}` (the kind is a symbol and leaves no trace), and `pattern` is matched
 * with the `u` flag, as JSON Schema validators do.
 */
export type TextOptions = Pick<
  StringOptions,
  "minLength" | "maxLength" | "pattern" | "format" | "description" | "default"
>;

const KIND = "Text";

/** Code points in `text`: its UTF-16 length less one per surrogate pair. */
export function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      pairs++;
      i++;
    }
  }
  return text.length - pairs;
}

/** Bounds checked without counting when the UTF-16 length already decides (a code point is 1–2 units). */
function withinLength(text: string, min = 0, max = Number.POSITIVE_INFINITY): boolean {
  if (text.length < min || text.length > 2 * max) return false;
  if (text.length <= max && text.length >= 2 * min) return true;
  const count = codePoints(text);
  return count >= min && count <= max;
}

function check(schema: TextOptions, value: unknown): boolean {
  if (typeof value !== "string" || !withinLength(value, schema.minLength, schema.maxLength)) return false;
  if (schema.pattern !== undefined && !compiledRegExp(schema.pattern, "u").test(value)) return false;
  if (schema.format !== undefined) return FormatRegistry.Get(schema.format)?.(value) ?? false;
  return true;
}

/** The message a refused value gets, in the words the other string checks use. */
function describe(schema: TextOptions): string {
  const { minLength: min, maxLength: max } = schema;
  const length =
    min !== undefined && max !== undefined
      ? `${min} to ${max} characters`
      : min !== undefined
        ? `at least ${min} characters`
        : max !== undefined
          ? `at most ${max} characters`
          : "a string";
  const rest = [schema.pattern && `matching ${schema.pattern}`, schema.format && `in ${schema.format} format`];
  return `Expected ${length}${rest
    .filter(Boolean)
    .map((part) => ` ${part}`)
    .join("")}`;
}

TypeRegistry.Set<TextOptions>(KIND, check);
SetErrorFunction((error) =>
  error.schema[Kind] === KIND ? describe(error.schema as TextOptions) : DefaultErrorFunction(error),
);

export function Text(options: TextOptions = {}): TUnsafe<string> {
  return T.Unsafe<string>({ [Kind]: KIND, type: "string", ...options });
}
