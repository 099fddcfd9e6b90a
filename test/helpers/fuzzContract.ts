import { Kind, type TSchema } from "@sinclair/typebox";
import type { FuzzRequest, Operation } from "./fuzz";
import type { JsonSchema } from "./fuzzValues";

/**
 * What the fuzz suite holds about the contract beyond "no 5xx": a body of a media type the
 * operation does not list is never accepted, a URL or header block over the documented limits is
 * refused with its own status, JSON bodies are not coerced, and every string bound of an input
 * counts code points (TypeBox's own `String` counts UTF-16 units).
 */

/** The longest URL (path and query, as sent) and header block the service reads (docs/errors-and-limits.md). */
export const DOCUMENTED_MAX_URL = 8_192;
export const DOCUMENTED_MAX_HEADERS = 16_384;

/** The media type of a Content-Type value: lower case, without parameters; "" when none was sent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * Whether a generated request carries a body: in process (as the fuzz suite sends) a Request holds
 * whatever body it was given, even an empty one, and has no Content-Length to say otherwise.
 */
export function carriesBody(sent: FuzzRequest): boolean {
  return sent.body !== undefined;
}

/** The Content-Type a generated request goes out with: a form body types itself, a string does not in process. */
function sentMediaType(sent: FuzzRequest): string {
  const declared = Object.entries(sent.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  if (declared !== undefined) return mediaTypeOf(declared);
  if (sent.body instanceof FormData) return "multipart/form-data";
  if (sent.body instanceof URLSearchParams) return "application/x-www-form-urlencoded";
  return "";
}

function listed(operation: Operation, media: string): boolean {
  const types = Object.keys(operation.body ?? {});
  return types.some(
    (type) => type === "*/*" || type === media || (type.endsWith("/*") && media.startsWith(type.slice(0, -1))),
  );
}

/**
 * What is wrong with the answer to a generated request, measured against the request's size and
 * media type: a URL or header block over the limit is 414 or 431 whatever else it is; a body of a
 * media type the operation does not list is never accepted, and 415 answers only such a body.
 */
export function contractProblem(
  operation: Operation,
  sent: FuzzRequest,
  status: number,
  text: string,
): string | undefined {
  const headerBytes = Object.entries(sent.headers).reduce(
    (sum, [name, value]) => sum + name.length + value.length + 4,
    0,
  );
  // As the server sees it: the URL parser encodes a few characters the generator sends as they are.
  const url = new URL(`http://localhost${sent.target}`);
  if (url.pathname.length + url.search.length > DOCUMENTED_MAX_URL) {
    return status === 414 ? undefined : `a long URL answered ${status}, not 414`;
  }
  if (status === 414) return "414 for a URL within the limit";
  // The request gets a few more headers (the key, a cookie): only a clear excess is held to 431.
  if (headerBytes > DOCUMENTED_MAX_HEADERS + 1_024)
    return status === 431 ? undefined : `long headers answered ${status}, not 431`;
  const undocumented =
    carriesBody(sent) && !listed(operation, sentMediaType(sent)) && !["GET", "HEAD"].includes(sent.method);
  if (undocumented && status < 400) return `a ${sentMediaType(sent) || "untyped"} body was accepted (${status})`;
  if (status < 400 && typeof sent.body === "string" && /"(__proto__|constructor)"\s*:/.test(sent.body)) {
    return `a body with a __proto__ or constructor key was accepted (${status})`;
  }
  // A route may refuse a file's own type with 415 too (an upload, an audio part): only the check's is held here.
  if (status === 415 && !undocumented && text.includes("This endpoint takes")) return "415 for a listed media type";
  return undefined;
}

/** Bun's own limit on the request line and headers (api/plugins/requestLimits.ts): past it, Bun's bare 431. */
const SERVER_HEADER_LIMIT = 262_144;

/**
 * What is wrong with a raw HTTP answer to a request whose target is over the URL limit but whose
 * head is within Bun's own: it must be the service's 414 with the error body, not Bun's bare 431.
 */
export function rawAnswerProblem(bytes: Uint8Array, answer: string): string | undefined {
  const text = new TextDecoder().decode(bytes);
  const head = text.indexOf("\r\n\r\n");
  const target = /^[A-Z]+ (\S+) HTTP\/1\.1\r\n/.exec(text)?.[1];
  if (!target || head === -1 || head > SERVER_HEADER_LIMIT - 1_024 || target.length <= DOCUMENTED_MAX_URL) return;
  if (answer.startsWith("HTTP/1.1 414") && answer.includes('"code":"URI_TOO_LONG"')) return undefined;
  return `a ${target.length}-character target answered ${answer.slice(0, 40)}`;
}

/** The text a client might send for a JSON number or boolean: what a JSON body must not take for one. */
function textForm(schema: JsonSchema): string | undefined {
  const types = [schema.type, ...(schema.anyOf ?? []).map((member) => member.type)];
  if (types.includes("integer")) return String(schema.minimum ?? 1);
  if (types.includes("number")) return "1.5";
  if (types.includes("boolean")) return "true";
  return undefined;
}

/**
 * A body for each number or boolean of a JSON body schema (through objects and the first array
 * item, three levels deep): the value sent as text where the schema wants it, and its JSON pointer.
 * The rest of the body is left out: the answer must name this field whatever else is missing.
 */
export function textualNumbers(schema: JsonSchema, depth = 0): { pointer: string; body: unknown }[] {
  if (depth > 3) return [];
  const found: { pointer: string; body: unknown }[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const text = textForm(property);
    if (text !== undefined) found.push({ pointer: `/${name}`, body: { [name]: text } });
    const nested = property.type === "array" ? property.items : property;
    if (!nested?.properties) continue;
    for (const inner of textualNumbers(nested, depth + 1)) {
      const body = property.type === "array" ? [inner.body] : inner.body;
      found.push({
        pointer: `/${name}${property.type === "array" ? "/0" : ""}${inner.pointer}`,
        body: { [name]: body },
      });
    }
  }
  return found;
}

/** The places of a TypeBox schema, with their JSON pointers into a value of it. */
function* schemaNodes(schema: unknown, path = ""): Generator<[string, Record<string | symbol, unknown>]> {
  if (!schema || typeof schema !== "object") return;
  const node = schema as Record<string | symbol, unknown>;
  yield [path || "/", node];
  for (const [name, child] of Object.entries((node.properties as Record<string, unknown>) ?? {})) {
    yield* schemaNodes(child, `${path}/${name}`);
  }
  for (const key of ["items", "additionalProperties", "not"]) yield* schemaNodes(node[key], `${path}/*`);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const member of (node[key] as unknown[] | undefined) ?? []) yield* schemaNodes(member, path);
  }
  if (node.$defs) for (const member of Object.values(node.$defs as object)) yield* schemaNodes(member, path);
}

/**
 * Strings with a length bound that TypeBox would count in UTF-16 units (anything but our `Text`,
 * shared/core/text.ts): each as `where: pointer`. A format-only or pattern-only string is fine.
 */
export function unitCountedStrings(where: string, schema: TSchema | undefined): string[] {
  const found: string[] = [];
  for (const [pointer, node] of schemaNodes(schema)) {
    const bounded = node.minLength !== undefined || node.maxLength !== undefined;
    if (node.type === "string" && bounded && node[Kind] !== "Text") found.push(`${where}: ${pointer}`);
  }
  return found;
}
