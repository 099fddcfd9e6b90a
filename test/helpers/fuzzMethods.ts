import fc from "fast-check";
import { policyFor } from "../../api/plugins/access";
import type { FuzzRequest, Operation } from "./fuzz";
import { type Hints, hintOf, plausible } from "./fuzzValues";

/**
 * Two request families for the fuzz suite beyond bad input: a method a known path does not answer
 * (405 with the documented methods as `Allow`, or 401 first where a credential is needed), and
 * empty optional query parameters (`?limit=`: the parameter left out, so never a 400 of its own).
 */

/** Methods a client may send to any path; OPTIONS is left out (the CORS plugin answers it everywhere). */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PROPFIND"];
const ALLOW_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Matches the concrete paths of an OpenAPI path: `{name}` one segment, `*` the rest. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\}|\*)/)
    .map((part) => (part === "*" ? ".*" : part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`);
}

export interface WrongMethod {
  /** The OpenAPI path the request's path comes from. */
  template: string;
  path: string;
  method: string;
  /** The methods the document lists for the path (HEAD with GET, OPTIONS always), as `Allow`. */
  allow: string;
  /** Every operation of the path is public: a method it lacks is 405 to anyone, key or none. */
  public: boolean;
}

/**
 * Every method the document lists for no operation on a path, for every path. The path is the
 * template with `x0` for each parameter (an id that exists is not needed to be told the method is
 * wrong); its `Allow` is the union over every documented operation whose path matches it.
 */
export function wrongMethodsOf(operations: readonly Operation[]): WrongMethod[] {
  const templates = [...new Set(operations.map((operation) => operation.path))];
  return templates.flatMap((template) => {
    const path = template.replace(/\{[^}]+\}|\*/g, "x0");
    const matching = operations.filter((operation) => templatePattern(operation.path).test(path));
    const methods = new Set(matching.map((operation) => operation.method));
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const allow = ALLOW_ORDER.filter((method) => methods.has(method)).join(", ");
    const open = matching.every((operation) => operation.public);
    return METHODS.filter((method) => !methods.has(method)).map((method) => ({
      template,
      path,
      method,
      allow,
      public: open,
    }));
  });
}

/**
 * What is wrong with the answer to a wrong method: without a credential on a path whose policy
 * needs one, 401 UNAUTHORIZED without `Allow`; otherwise, and on a path whose every operation is
 * public (a share link, the signed upload URL, sign-in), 405 METHOD_NOT_ALLOWED with the `Allow`
 * the document implies. Undefined when right.
 */
export function wrongMethodProblem(
  wrong: WrongMethod,
  credentialed: boolean,
  response: Response,
  text: string,
): string | undefined {
  const policy = policyFor(wrong.method, wrong.path);
  const [status, code, allow] =
    !credentialed && policy && !policy.anonymous && !wrong.public
      ? [401, "UNAUTHORIZED", null]
      : [405, "METHOD_NOT_ALLOWED", wrong.allow];
  const got = response.headers.get("allow");
  if (response.status === status && got === allow && text.includes(`"code":"${code}"`)) return undefined;
  const sent = `${wrong.method} ${wrong.path}${credentialed ? " with credentials" : ""}`;
  return `${sent}: expected ${status} ${code}, Allow ${allow}; got ${response.status}, Allow ${got}: ${text.slice(0, 200)}`;
}

/** The same request twice: once without some optional query parameters, once with each of them empty. */
export interface EmptyQueryPair {
  without: FuzzRequest;
  withEmpty: FuzzRequest;
  emptied: string[];
}

const asText = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

/** A value from the hints (real ids, known words) or, without one, a plausible one. */
function valueArb(name: string, schema: Operation["query"][number]["schema"], hints: Hints): fc.Arbitrary<string> {
  const real = hintOf(hints, name).map(String);
  return real.length > 0 ? fc.constantFrom(...real) : plausible(schema, hints, 0, false).map(asText);
}

/**
 * Pairs for an operation with optional query parameters: real ids in the path, real or plausible
 * values for the required parameters and for some optional ones, and a non-empty subset of the
 * optional ones sent empty (`name=`, or `name` alone) instead, before or after the others.
 */
export function emptyQueryArb(operation: Operation, hints: Hints): fc.Arbitrary<EmptyQueryPair> {
  const optional = operation.query.filter((parameter) => !parameter.required).map((parameter) => parameter.name);
  const parts = operation.path.split(/(\{[^}]+\}|\*)/);
  const path = fc
    .tuple(
      ...parts.map((part) => {
        const name = part === "*" ? "*" : /^\{([^}]+)\}$/.exec(part)?.[1];
        return name ? valueArb(name, {}, hints).map(encodeURIComponent) : fc.constant(part);
      }),
    )
    .map((pieces) => pieces.join(""));
  const values = fc.tuple(
    ...operation.query.map((parameter) => {
      const value = valueArb(parameter.name, parameter.schema, hints);
      return parameter.required ? value : fc.option(value, { nil: undefined });
    }),
  );
  return fc
    .tuple(path, values, fc.subarray(optional, { minLength: 1 }), fc.constantFrom("=", ""), fc.boolean())
    .map(([target, given, emptied, equals, first]) => {
      const pairs = operation.query.flatMap((parameter, index) => {
        const value = given[index];
        if (value === undefined || emptied.includes(parameter.name)) return [];
        return [`${parameter.name}=${encodeURIComponent(value)}`];
      });
      const blanks = emptied.map((name) => `${name}${equals}`);
      const request = (list: string[]): FuzzRequest => ({
        method: operation.method,
        target: target + (list.length > 0 ? `?${list.join("&")}` : ""),
        headers: {},
      });
      const withEmpty = request(first ? [...blanks, ...pairs] : [...pairs, ...blanks]);
      return { without: request(pairs), withEmpty, emptied };
    });
}

/**
 * What is wrong with the answer to the request with empty parameters, next to the answer without
 * them: being the same request, it must get the same status and, refused, the same error code and
 * details (so no detail ever points at an emptied parameter).
 */
export function emptyQueryProblem(
  pair: EmptyQueryPair,
  without: { status: number; text: string },
  withEmpty: { status: number; text: string },
): string | undefined {
  const refusal = (text: string) => {
    const { code, details } = (JSON.parse(text) as { error: { code: string; details?: unknown } }).error;
    return JSON.stringify({ code, details });
  };
  const changed =
    withEmpty.status !== without.status ||
    (withEmpty.status >= 400 && refusal(withEmpty.text) !== refusal(without.text));
  if (!changed) return undefined;
  const was = `${without.status} ${without.text.slice(0, 200)}`;
  return `empty ${pair.emptied.join(", ")} changed the answer from ${was} to ${withEmpty.status} ${withEmpty.text.slice(0, 300)}`;
}
