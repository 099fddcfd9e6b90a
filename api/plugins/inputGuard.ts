import { Elysia } from "elysia";
import { type AppError, type ErrorDetail, invalidRequest } from "../../shared/core/errors";
import { raiseServerHeaderLimit, refuseOversizedRequest } from "./requestLimits";

/** Deeper than any body of ours (a chat request is 3 levels); a JSON-RPC body is checked by MCP. */
export const MAX_BODY_DEPTH = 32;

/**
 * The first string (or key) PostgreSQL cannot store: a NUL character (text and jsonb refuse it,
 * and the driver's error looked like an outage) or a lone surrogate (jsonb refuses its escape, text
 * silently becomes U+FFFD). Returns its JSON pointer and the problem.
 */
export function unstorableText(value: unknown): { path: string; message: string } | undefined {
  const pending: [unknown, string][] = [[value, ""]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === "string") {
      const problem = textProblem(item);
      if (problem) return { path: path || "/", message: problem };
    } else if (isContainer(item)) {
      for (const [key, child] of Object.entries(item)) {
        const problem = textProblem(key, "A property name");
        if (problem) return { path: path || "/", message: problem };
        pending.push([child, `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`]);
      }
    }
  }
  return undefined;
}

/**
 * Property names no body or tool argument may use. On a plain object `__proto__` is the prototype
 * and `constructor` the class: a library that copies or merges the parsed body can be steered by
 * them (prototype pollution). Refused everywhere with one message, whatever the schema would say.
 */
const RESERVED_KEYS = new Set(["__proto__", "constructor"]);

/** The first `__proto__` or `constructor` property in a parsed body, with its JSON pointer. */
export function reservedKey(value: unknown): { path: string; message: string } | undefined {
  const pending: [unknown, string][] = [[value, ""]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (!isContainer(item)) continue;
    for (const [key, child] of Object.entries(item)) {
      const pointer = `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (RESERVED_KEYS.has(key))
        return { path: pointer, message: `The property name ${key} is reserved; no body takes it.` };
      pending.push([child, pointer]);
    }
  }
  return undefined;
}

function textProblem(text: string, what = "Text"): string | undefined {
  if (text.includes("\u0000")) return `${what} may not contain the NUL character (U+0000).`;
  if (!text.isWellFormed()) return `${what} must be valid Unicode (it holds a lone surrogate).`;
  return undefined;
}

/** Arrays and objects; files and bytes are leaves (a parsed body may be a File or an ArrayBuffer). */
function isContainer(value: unknown): value is object {
  return (
    typeof value === "object" &&
    value !== null &&
    !(value instanceof Blob) &&
    !(value instanceof ArrayBuffer) &&
    !ArrayBuffer.isView(value)
  );
}

/** How deeply arrays and objects nest, counted without recursion (a body may nest 500,000 levels). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (!isContainer(item)) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Runs after parsing and before validation, for every route: a body nested deeper than any of
 * ours is refused before Elysia's validation error pretty-prints it (quadratic in the depth: a
 * 100,000-level array took 6 s and ended "Out of memory", a 500), a `__proto__` or `constructor`
 * property anywhere in a body is refused naming it (`reservedKey`), and text the database cannot
 * store is refused with a pointer to it instead of failing in the query. An empty query value is
 * dropped first (`dropEmptyQueryValues`). Before all that, when the request arrives: a URL or
 * header block larger than the service reads is refused (requestLimits.ts).
 */
export function inputGuard() {
  raiseServerHeaderLimit();
  return new Elysia({ name: "input-guard" })
    .onRequest(({ request }) => {
      // A block body: Elysia awaits a hook whose source reads `=> call(` (it guesses the hook may be
      // async), and an await costs every request a turn of the microtask queue.
      refuseOversizedRequest(request);
    })
    .onTransform({ as: "global" }, ({ body, query, params }) => {
      // Most requests (GETs without a query string on routes without parameters) have nothing to walk.
      if (body === undefined && isEmpty(query) && isEmpty(params)) return;
      dropEmptyQueryValues(query);
      if (depthOf(body) > MAX_BODY_DEPTH) {
        throw invalid("body", { path: "/", message: `The body nests deeper than ${MAX_BODY_DEPTH} levels.` });
      }
      const reserved = reservedKey(body);
      if (reserved) throw invalid("body", reserved);
      for (const [part, value] of [
        ["body", body],
        ["query", query],
        ["params", params],
      ] as const) {
        const problem = unstorableText(value);
        if (problem) throw invalid(part, problem);
      }
    });
}

/**
 * `?q=x&limit=` means no limit, as an HTML form sends a field left blank: an empty value is the
 * parameter left out, so an optional one takes its default and a required one fails validation as
 * missing (a 400 naming it). A hook sees no route schema, so every empty value goes, an unknown
 * parameter's too: it carries nothing to refuse. Validation reads this same object afterwards.
 */
function dropEmptyQueryValues(query: Record<string, unknown> | undefined): void {
  for (const name in query) if (query[name] === "") delete query[name];
}

function isEmpty(value: object | undefined): boolean {
  for (const _ in value) return false;
  return true;
}

function invalid(part: ErrorDetail["in"], problem: { path: string; message: string }): AppError {
  return invalidRequest([{ in: part, ...problem }]);
}
