import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * Holds every response a test receives against /openapi.json: the operation exists, its status is
 * documented, its content type is documented, and a JSON body matches the schema (Ajv, JSON
 * Schema 2020-12). A mismatch throws in the test that made the request. Each app (or server) is asked
 * for its document once, and each distinct document is compiled once.
 */
type Json = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
interface PathEntry {
  template: string;
  pattern: RegExp;
  /** The fallback entry whose trailing parameter takes slashes. */
  slashes: boolean;
  operations: Record<string, Operation>;
}

interface Contract {
  paths: PathEntry[];
  validator: (pointer: string) => ValidateFunction;
}

/** Per app (in process) or per origin (over a socket); null where no document is served. */
const contracts = new Map<unknown, Promise<Contract | null>>();
export const contractStats = { checked: 0 };

const escapePointer = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1");

function build(doc: Json): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi");
  const compiled = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `openapi#${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };
  const pattern = (template: string, lastTakesSlashes: boolean) => {
    const parts = template.split("/").map((part, index, all) => {
      if (!part.startsWith("{")) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return lastTakesSlashes && index === all.length - 1 ? ".+" : "[^/]+";
    });
    return new RegExp(`^${parts.join("/")}$`);
  };
  const entries = Object.entries(doc.paths as Record<string, Record<string, Operation>>);
  // As the router matches: literal paths, then one segment per parameter, then a trailing
  // wildcard (an old-style arXiv id holds a slash).
  const paths = [
    ...entries
      .filter(([template]) => !template.includes("{"))
      .map(([t, o]) => ({ template: t, pattern: pattern(t, false), slashes: false, operations: o })),
    ...entries
      .filter(([template]) => template.includes("{"))
      .map(([t, o]) => ({ template: t, pattern: pattern(t, false), slashes: false, operations: o })),
    ...entries
      .filter(([template]) => template.endsWith("}"))
      .map(([t, o]) => ({ template: t, pattern: pattern(t, true), slashes: true, operations: o })),
  ];
  return { paths, validator };
}

/** Apps in one run serve the same document (or one of few): each is compiled once. */
const byDocument = new Map<string, Contract>();
function compiled(text: string): Contract {
  let contract = byDocument.get(text);
  if (!contract) {
    contract = build(JSON.parse(text) as Json);
    byDocument.set(text, contract);
  }
  return contract;
}

function loadContract(key: unknown, fetchDocument: () => Promise<Response>): Promise<Contract | null> {
  let contract = contracts.get(key);
  if (!contract) {
    // A test's own small app serves no document: its responses are not the service's.
    contract = fetchDocument().then(async (response) => (response.ok ? compiled(await response.text()) : null));
    // A server that failed to answer is asked again next time.
    contract.catch(() => contracts.delete(key));
    contracts.set(key, contract);
  }
  return contract;
}

/**
 * `fetch` that also holds what the service's own servers answer against the document: a response
 * carrying `X-Request-Id` from a loopback server (fakes of RxNav, openFDA, S3 and the model
 * providers, and Meilisearch, send none). Installed for the whole run by the test preload, so
 * tests that start real API processes are checked as well.
 */
export function checkingFetch(original: typeof fetch): typeof fetch {
  const checked = async (input: string | URL | Request, init?: RequestInit) => {
    // Read without building a Request: that would drop Bun's own options (`unix`) and take the body.
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const response = await original(input, init);
    const { hostname, origin } = new URL(url);
    const loopback = hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
    if (loopback && response.headers.has("x-request-id") && new URL(url).pathname !== "/openapi.json") {
      await checkResponse(origin, () => original(`${origin}/openapi.json`), { method, url }, response);
    }
    return response;
  };
  return Object.assign(checked, original) as typeof fetch;
}

function mediaTypeOf(response: Response): string | undefined {
  return response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
}

/** Checks one response; throws an Error naming the operation and what does not conform. */
export async function checkResponse(
  key: unknown,
  fetchDocument: () => Promise<Response>,
  request: { method: string; url: string },
  response: Response,
): Promise<void> {
  const contract = await loadContract(key, fetchDocument);
  if (contract) await check(contract, request, response);
}

async function check(
  { paths, validator }: Contract,
  request: { method: string; url: string },
  response: Response,
): Promise<void> {
  const method = request.method.toUpperCase();
  if (method === "OPTIONS") return;
  const path = new URL(request.url).pathname.replace(/(.)\/$/, "$1");
  let entry = paths.find((candidate) => candidate.pattern.test(path));
  // Matched only by letting a trailing parameter take slashes, yet the router had no route.
  if (entry?.slashes && (response.status === 404 || response.status === 405)) entry = undefined;
  const verb = method === "HEAD" ? "get" : method.toLowerCase();
  const operation = entry?.operations[verb];
  const where = `${method} ${path}${entry ? ` (${entry.template})` : ""} → ${response.status}`;
  contractStats.checked++;
  if (!operation || !entry) {
    // No operation: "no such route" or "no such method", or a refusal before routing (key, plan,
    // body size, URL or header size, rate limit), with the error body.
    if (![401, 403, 404, 405, 413, 414, 429, 431].includes(response.status)) {
      throw new Error(`${where}: no such operation in /openapi.json`);
    }
    return checkBody(validator, "/components/schemas/Error", where, response);
  }
  const status = String(response.status);
  const documented =
    operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
  if (!documented)
    throw new Error(`${where}: status not documented (documented: ${Object.keys(operation.responses).join(", ")})`);
  if (!documented.content || method === "HEAD" || response.status === 204 || response.status === 304) return;
  const media = mediaTypeOf(response);
  if (!media || !documented.content[media]) {
    throw new Error(`${where}: content type ${media} not documented (${Object.keys(documented.content).join(", ")})`);
  }
  if (media !== "application/json" || !documented.content[media]?.schema) return;
  const pointer = `/paths/${escapePointer(entry.template)}/${verb}/responses/${status in operation.responses ? status : "default"}/content/${escapePointer(media)}/schema`;
  return checkBody(validator, pointer, where, response);
}

async function checkBody(
  validator: (pointer: string) => ValidateFunction,
  pointer: string,
  where: string,
  response: Response,
) {
  const text = await response.clone().text();
  if (text === "") return;
  const validate = validator(pointer);
  if (!validate(JSON.parse(text))) {
    const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message}`);
    throw new Error(`${where}: body does not match its schema: ${errors.join("; ")}; body: ${text.slice(0, 300)}`);
  }
}
