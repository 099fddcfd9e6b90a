import fc from "fast-check";
import { DEFAULT_MAX_BODY_BYTES } from "../../api/plugins/bodyLimit";
import {
  deepObject,
  type Hints,
  hintOf,
  invalid,
  type JsonSchema,
  NASTY_TEXT,
  NUMERIC_TEXT,
  plausible,
  UNSTORABLE_TEXT,
} from "./fuzzValues";

/**
 * Request generators for the fuzz suite (test/integration/api/fuzz.test.ts): every operation of the
 * app's own OpenAPI document becomes an arbitrary of bad and boundary requests; raw HTTP for a real
 * port. The checks on the answers are in fuzzChecks.ts.
 */

/** Requests per generated property: `FUZZ_RUNS` (the long run) or the fast default. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS) || 40;

export interface Operation {
  method: string;
  /** OpenAPI path, `{name}` for a parameter, `*` for the papers wildcard. */
  path: string;
  query: { name: string; required?: boolean; schema: JsonSchema }[];
  /** Media type → schema, when the operation declares a body. */
  body?: Record<string, JsonSchema>;
  /** Callable without a credential (`security: []`). */
  public: boolean;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: unknown[];
}

export function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      query: (operation.parameters ?? []).filter((parameter) => parameter.in === "query"),
      public: (operation.security ?? []).length === 0,
      ...(operation.requestBody
        ? {
            body: Object.fromEntries(
              Object.entries(operation.requestBody.content).map(([type, media]) => [type, media.schema]),
            ),
          }
        : {}),
    })),
  );
}

export interface FuzzRequest {
  method: string;
  /** Path and query, already percent-encoded (or deliberately mis-encoded). */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

export function toRequest(sent: FuzzRequest, key?: string): Request {
  const headers = new Headers(sent.headers);
  if (key) headers.set("authorization", `Bearer ${key}`);
  return new Request(`http://localhost${sent.target}`, { method: sent.method, headers, body: sent.body });
}

/** One line naming a request, for failure messages (bodies cut short). */
export function describeRequest(sent: FuzzRequest): string {
  const body =
    typeof sent.body === "string"
      ? JSON.stringify(sent.body.slice(0, 200))
      : sent.body instanceof Uint8Array
        ? `${sent.body.length} bytes`
        : sent.body
          ? `form ${JSON.stringify([...sent.body.keys()])}`
          : "no body";
  return `${sent.method} ${sent.target.slice(0, 200)} [${sent.headers["content-type"] ?? "no content-type"}] ${body}`;
}

/** Percent-encodes like encodeURIComponent, but a lone surrogate becomes its (invalid) UTF-8 bytes. */
export function encodeLoose(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.charCodeAt(0);
    out +=
      char.length === 1 && code >= 0xd800 && code <= 0xdfff
        ? `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`
        : encodeURIComponent(char);
  }
  return out;
}

const bytesAsPath = (bytes: Uint8Array) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");

/** Path ids of every shape: unknown UUIDs, numbers, traversal, bad or invalid-UTF-8 escapes, huge. */
const ID_SHAPES: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.constantFrom(
    "0",
    "-1",
    "1e9",
    "null",
    "undefined",
    "%00",
    "%ff",
    "%FF%FE",
    "%ED%A0%80",
    "%C0%AF",
    "%",
    "%zz",
    "%2e%2e",
    "..",
    ".",
    "%2F",
    "a%2Fb",
    "%20",
    "+",
    "MONDO:0004979",
    "MONDO_0004979",
    "00000000-0000-0000-0000-000000000000",
    "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    "%7B00000000-0000-0000-0000-000000000000%7D",
    "'%20or%201=1--",
    "%E2%80%AE",
    "%0d%0aSet-Cookie:%20x=1",
    "__proto__",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map(bytesAsPath),
  fc.integer({ min: 65, max: 20_000 }).map((length) => "a".repeat(length)),
);

/** Real ids (the caller's and another account's) and variants of them, or any shape at all. */
function segment(real: readonly unknown[]): fc.Arbitrary<string> {
  if (real.length === 0) return ID_SHAPES;
  const id = fc.constantFrom(...real.map(String));
  return fc.oneof(
    { weight: 3, arbitrary: id },
    { weight: 1, arbitrary: id.map((value) => value.toUpperCase()) },
    { weight: 1, arbitrary: id.chain((value) => fc.constantFrom(`${value}%00`, `%20${value}`, `${value}x`)) },
    { weight: 2, arbitrary: ID_SHAPES },
  );
}

function pathArb(operation: Operation, hints: Hints): fc.Arbitrary<string> {
  const parts = operation.path.split(/(\{[^}]+\}|\*)/);
  return fc
    .tuple(
      ...parts.map((part) => {
        if (part === "*") return fc.oneof(segment(hintOf(hints, "*")), fc.constantFrom("hep-th/9901001", "a/b/../c"));
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        return name ? segment(hintOf(hints, name)) : fc.constant(part);
      }),
    )
    .map((pieces) => pieces.join(""));
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

function queryValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<string> {
  const numeric = schema.type === "integer" || (schema.anyOf ?? []).some((member) => member.type === "integer");
  return fc.oneof(
    { weight: 3, arbitrary: plausible(schema, hints).map(asText) },
    { weight: 2, arbitrary: invalid(schema, hints).map(asText) },
    { weight: 1, arbitrary: numeric ? NUMERIC_TEXT : fc.constantFrom(...NASTY_TEXT, ...UNSTORABLE_TEXT) },
  );
}

const QUERY_NOISE = fc.constantFrom(
  "",
  "&unknown=1",
  "&limit=1&limit=2",
  "&%zz=%zz",
  "&=",
  "&&&",
  "&q[]=a&q[b]=c",
  "&%ED%A0%80=%ff",
  `&${"p=1&".repeat(2000)}`,
  `&long=${"a".repeat(20_000)}`,
);

function queryArb(operation: Operation, hints: Hints): fc.Arbitrary<string> {
  const model = Object.fromEntries(
    operation.query.map((parameter) => {
      const real = hintOf(hints, parameter.name).map(String);
      const value = queryValue(parameter.schema, hints);
      const given = real.length > 0 ? fc.oneof(fc.constantFrom(...real), value) : value;
      // A required parameter is mostly there (so the others are checked too), sometimes missing.
      return [parameter.name, fc.option(given, { freq: parameter.required ? 8 : 1, nil: undefined })];
    }),
  );
  const noise = fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: QUERY_NOISE });
  return fc.tuple(fc.record(model), noise).map(([values, noise]) => {
    const pairs = Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name}=${encodeLoose(String(value))}`);
    const query = pairs.join("&") + noise;
    return query ? `?${query}` : "";
  });
}

type Body = Pick<FuzzRequest, "headers" | "body">;

const json = (value: unknown): Body => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value) ?? "null",
});

/** JSON that breaks the grammar: truncations, trailing commas, comments, NaN, single quotes. */
export const MALFORMED = fc.constantFrom(
  "{",
  '{"a":}',
  '{"a":1,}',
  "[1,2",
  "nul",
  "NaN",
  "{'a': 1}",
  '{"a": 1} // comment',
  "\ufeff{}",
  '{"a": "\\x41"}',
  '{"a": "\\ud800"}',
  '{"a": 01}',
  "{}{}",
  '"just a string"',
  "42",
  "[]",
);

/** Bytes that are not UTF-8 inside an otherwise fine JSON string. */
export const BAD_UTF8 = fc
  .constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe, 0xff])
  .map((bad) => new Uint8Array([...new TextEncoder().encode('{"title":"'), ...bad, ...new TextEncoder().encode('"}')]));

function formOf(value: unknown, multipart: boolean): FormData | URLSearchParams {
  const form = multipart ? new FormData() : new URLSearchParams();
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [name, field] of Object.entries(value)) form.append(name, asText(field));
  }
  return form;
}

/** A multipart form for a schema with a binary field (the audio upload): random bytes, odd part types. */
function multipartArb(schema: JsonSchema, hints: Hints): fc.Arbitrary<Body> {
  const fields = Object.entries(schema.properties ?? {});
  const model = Object.fromEntries(
    fields.map(([name, property]) => [
      name,
      property.format === "binary"
        ? fc.tuple(
            fc.uint8Array({ maxLength: 64 }),
            fc.constantFrom("audio/mpeg", "audio/wav", "audio/ogg", "text/plain", "", "application/octet-stream"),
          )
        : fc.oneof(plausible(property, hints), invalid(property, hints)),
    ]),
  );
  return fc.record(model, { requiredKeys: [] }).map((values) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(values)) {
      const binary = schema.properties?.[name]?.format === "binary";
      if (binary) {
        const [bytes, type] = value as [Uint8Array, string];
        form.append(name, new Blob([bytes], { type }), "voice.bin");
      } else form.append(name, asText(value));
    }
    return { headers: {}, body: form };
  });
}

/** Bodies for an operation that declares one: half schema-shaped (odd values), then every kind of broken. */
function bodyArb(body: Record<string, JsonSchema>, hints: Hints): fc.Arbitrary<Body> {
  const schema = body["application/json"] ?? Object.values(body)[0] ?? {};
  const multipartOnly = !body["application/json"] && body["multipart/form-data"];
  const shaped = multipartOnly ? multipartArb(schema, hints) : plausible(schema, hints).map(json);
  const bodies: fc.WeightedArbitrary<Body>[] = [
    { weight: 12, arbitrary: shaped },
    { weight: 4, arbitrary: invalid(schema, hints).map(json) },
    {
      weight: 1,
      arbitrary: MALFORMED.map((text) => ({ headers: { "content-type": "application/json" }, body: text })),
    },
    {
      weight: 1,
      arbitrary: BAD_UTF8.map((bytes) => ({ headers: { "content-type": "application/json" }, body: bytes })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { headers: { "content-type": "application/json" }, body: `${"[".repeat(100_000)}${"]".repeat(100_000)}` },
        json({ a: 1, nested: deepObject(5_000) }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          plausible(schema, hints),
          fc.constantFrom(
            "text/plain",
            "application/xml",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "multipart/form-data; boundary=nope",
            "application/json; charset=latin1",
            "image/png",
            "",
          ),
        )
        .map(([value, type]): Body => ({ headers: type ? { "content-type": type } : {}, body: JSON.stringify(value) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(plausible(schema, hints), fc.boolean())
        .map(([value, multipart]) => ({ headers: {}, body: formOf(value, multipart) as FormData })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(json({ title: "x".repeat(DEFAULT_MAX_BODY_BYTES), message: "m" }), {
        headers: { "content-type": "application/json" },
        body: new Uint8Array(DEFAULT_MAX_BODY_BYTES + 1).fill(32),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>({ headers: {}, body: "" }, { headers: { "content-type": "application/json" } }),
    },
  ];
  return fc.oneof(...bodies);
}

/** A stray body on an operation that takes none. */
const STRAY_BODY: fc.Arbitrary<Body> = fc.oneof(
  fc.constant<Body>({ headers: {} }),
  MALFORMED.map((text) => ({ headers: { "content-type": "application/json" }, body: text })),
  BAD_UTF8.map((bytes) => ({ headers: { "content-type": "application/octet-stream" }, body: bytes })),
);

/** Bad and boundary requests for one operation; `hints` name real values (ids that exist) by parameter or property. */
export function requestArb(operation: Operation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const canCarryBody = operation.method !== "GET" && operation.method !== "HEAD";
  const body = operation.body
    ? bodyArb(operation.body, hints)
    : canCarryBody
      ? STRAY_BODY
      : fc.constant<Body>({ headers: {} });
  return fc
    .tuple(pathArb(operation, hints), queryArb(operation, hints), body, HEADER_NOISE)
    .map(([path, query, sent, noise]) => ({
      method: operation.method,
      target: path + query,
      ...sent,
      headers: { ...noise, ...sent.headers },
    }));
}

/** Headers the routes read besides the key: request ids, SSE resume points, CORS, caching, a second key. */
const HEADER_NOISE: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom(
        "x-request-id",
        "last-event-id",
        "origin",
        "accept",
        "if-none-match",
        "x-api-key",
        "x-forwarded-for",
        "mcp-protocol-version",
        "cookie",
      ),
      fc.oneof(
        fc.constantFrom("-1", "1e400", "9".repeat(400), "abc", "", "*", "null", "phk_not_a_key", "a=1; a=2"),
        fc.string({ unit: "grapheme-ascii", maxLength: 80 }),
        fc.constant("x".repeat(8_000)),
      ),
      { maxKeys: 3 },
    ),
  },
);

/** Whole HTTP/1.1 messages that break the protocol itself: bad request lines, headers, framing. */
export const RAW_HTTP: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .constantFrom(
      "GET / HTTP/1.1\r\n\r\n",
      "GET /api/v1/account HTTP/9.9\r\nHost: x\r\n\r\n",
      "BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /healthz\r\n\r\n",
      "GET /%ED%A0%80 HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n",
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX: ${"a".repeat(100_000)}\r\n\r\n`,
      "POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n{}",
      "POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
      "POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
      "POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      "POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n0\r\n\r\n",
      'POST /api/v1/health/trackers HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"title":',
      // Over the service's URL limit and under Bun's own: the service's 414; over Bun's: Bun's 431.
      `GET /api/v1/papers/search?q=${"q".repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /healthz?q=${"q".repeat(300_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    )
    .map((text) => new TextEncoder().encode(text)),
  fc.uint8Array({ minLength: 1, maxLength: 512 }),
  fc.uint8Array({ maxLength: 256 }).map((bytes) => new Uint8Array([...new TextEncoder().encode("GET /"), ...bytes])),
);

/** Writes bytes to a fresh connection, half-closes it, and returns whatever the server answered. */
export async function rawExchange(port: number, bytes: Uint8Array): Promise<string> {
  const chunks: Uint8Array[] = [];
  const closed = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_, data) => {
        chunks.push(new Uint8Array(data));
      },
      close: () => closed.resolve(),
      error: () => closed.resolve(),
    },
  });
  socket.write(bytes);
  socket.shutdown();
  await closed.promise;
  return new TextDecoder().decode(Buffer.concat(chunks));
}
