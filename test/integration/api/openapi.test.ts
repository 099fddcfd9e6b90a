import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia, t } from "elysia";
import { createApp } from "../../../api/app";
import { failures } from "../../../api/openapi/declare";
import { openApiDocument } from "../../../api/openapi/document";
import { openApiPath } from "../../../api/openapi/operation";
import { wireSchema } from "../../../api/openapi/wireSchema";
import { policyFor } from "../../../api/plugins/access";
import { ERROR_KINDS, type ErrorKind } from "../../../shared/core/errors";
import { type Doc, renderIndex, withIndex } from "../../helpers/apiIndex";
import { call, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

type Json = Record<string, unknown>;
type Operation = Json & {
  operationId: string;
  summary: string;
  security: Json[];
  requestBody?: { content: Json };
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
};
type Document = Json & { paths: Record<string, Record<string, Operation>>; servers: { url: string }[]; info: Json };

let app: TestApp;
let doc: Document;
const operations: { method: string; path: string; operation: Operation }[] = [];

beforeAll(async () => {
  app = createApp(await testDeps());
  doc = await json<Document>(await call(app, "/openapi.json"));
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) operations.push({ method, path, operation });
  }
});

const codesOf = (response: { content?: Record<string, { schema: Json }> }): ErrorKind[] => {
  const allOf = response.content?.["application/json"]?.schema.allOf as Json[] | undefined;
  return ((allOf?.[1] as { properties: { error: { properties: { code: { enum: ErrorKind[] } } } } })?.properties.error
    .properties.code.enum ?? []) as ErrorKind[];
};

describe("the OpenAPI document", () => {
  test("documents every served route, and nothing else", () => {
    const served = app.routes
      .filter((route) => route.method !== "OPTIONS" && route.path !== "/*")
      .map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path, route.hooks.detail)}`)
      .sort();
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(served);
  });

  test("Redocly CLI lint (recommended-strict): no errors and no warnings", async () => {
    const dir = await mkdtemp(join(tmpdir(), "phs-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      await writeFile(file, JSON.stringify(doc));
      const cli = join(import.meta.dir, "../../../node_modules/@redocly/cli/bin/cli.js");
      const lint = Bun.spawnSync(["bun", cli, "lint", file, "--extends=recommended-strict", "--format=json"], {
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
      const report = JSON.parse(lint.stdout.toString()) as { totals: Json; problems: { message: string }[] };
      expect(report.problems.map((problem) => problem.message)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("servers, license, and an operation id and summary on every operation", () => {
    expect(doc.servers).toEqual([{ url: expect.stringMatching(/^http/) }]);
    expect(doc.info.license).toBeDefined();
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ operation }) => !operation.summary)).toEqual([]);
  });

  test("security follows the access policy: public operations declare none; only the MCP endpoint takes OAuth", () => {
    for (const { method, path, operation } of operations) {
      const policy = policyFor(method.toUpperCase(), path);
      const keys = [{ bearer: [] }, { apiKey: [] }];
      const expected =
        !policy || policy.anonymous
          ? []
          : policy.auth === "session"
            ? [{ session: [] }]
            : path === "/api/mcp"
              ? [...keys, { oauth2: [] }]
              : keys;
      expect(operation.security, `${method} ${path}`).toEqual(expected);
    }
    expect(doc.paths["/healthz"]?.get?.security).toEqual([]);
    expect(doc.paths["/api/v1/shared/{token}"]?.get?.security).toEqual([]);
  });

  test("each error response lists only codes of its status; every operation can answer 500 and 503", () => {
    const wrong: string[] = [];
    for (const { method, path, operation } of operations) {
      if (!operation.responses["500"] || !operation.responses["503"]) wrong.push(`${method} ${path}: no 500/503`);
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of codesOf(response)) {
          if (ERROR_KINDS[code].status !== Number(status)) wrong.push(`${method} ${path}: ${code} under ${status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    const keyed = doc.paths["/api/v1/health/trackers/{trackerId}"]?.get as Operation;
    expect(codesOf(keyed.responses["401"] ?? {})).toEqual(["UNAUTHORIZED"]);
    expect(codesOf(keyed.responses["403"] ?? {})).toEqual(["PLAN_REQUIRED", "CONSENT_REQUIRED"]);
    expect(codesOf(keyed.responses["404"] ?? {})).toEqual(["NOT_FOUND"]);
    expect(codesOf(keyed.responses["429"] ?? {})).toEqual(["RATE_LIMITED"]);
  });

  test("request bodies list only the media types the route reads", () => {
    const media = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.requestBody?.content ?? {});
    expect(media("/api/v1/health/trackers", "post")).toEqual(["application/json"]);
    expect(media("/api/v1/papers/search", "post")).toEqual(["application/json"]);
    expect(media("/api/v1/transcribe", "post")).toEqual(["multipart/form-data"]);
    expect(media("/api/v1/uploads/{fileId}/content", "put")).toEqual(["*/*"]);
    expect(media("/api/mcp", "post")).toEqual(["application/json"]);
    // Forms where a browser or an OAuth client posts one: the consent page, the token endpoint.
    expect(media("/oauth/interaction/{uid}", "post")).toEqual(["application/x-www-form-urlencoded"]);
    expect(media("/oauth/token", "post")).toEqual(["application/x-www-form-urlencoded"]);
    // An operation without a body lists none, and can answer 415 (a body sent anyway).
    expect(doc.paths["/api/v1/chats/{chatid}/share"]?.post?.requestBody).toBeUndefined();
    expect(Object.keys(doc.paths["/api/v1/chats/{chatid}/share"]?.post?.responses ?? {})).toContain("415");
  });

  test("streams, files and pages have their real media types", () => {
    const content = (path: string, method: string, status = "200") =>
      Object.keys(doc.paths[path]?.[method]?.responses[status]?.content ?? {});
    expect(content("/api/v1/health/chat", "post")).toEqual(["application/json", "text/event-stream"]);
    expect(content("/api/v1/health/chat/{chatid}/stream", "get")).toEqual(["text/event-stream"]);
    expect(content("/api/v1/health/trackers/{trackerId}/export", "get")).toEqual(["application/json", "text/csv"]);
    expect(content("/metrics", "get")).toEqual(["text/plain"]);
    expect(content("/", "get")).toEqual(["text/html"]);
    expect(content("/.well-known/mcp.json", "get")).toEqual(["application/json"]);
  });

  test("query integers are integers on the wire, and null is allowed where the service answers null", () => {
    const search = doc.paths["/api/v1/papers/search"]?.get as Operation & { parameters: Json[] };
    expect(search.parameters.find((p) => p.name === "limit")?.schema).toMatchObject({ type: "integer", minimum: 1 });
    const entry = (
      (doc.paths["/api/v1/health/trackers/{trackerId}/entries"]?.post?.responses["201"]?.content?.["application/json"]
        ?.schema.properties ?? {}) as Record<string, Json>
    ).temperatureUnit as Json;
    expect(entry.anyOf).toContainEqual({ type: "null" });
  });

  test("docs/api.md's endpoint index is this document (UPDATE_DOCS=1 rewrites it)", async () => {
    const file = join(import.meta.dir, "../../../docs/api.md");
    const page = await readFile(file, "utf8");
    const expected = withIndex(page, renderIndex(doc as unknown as Doc));
    if (process.env.UPDATE_DOCS === "1") await writeFile(file, expected);
    expect(page).toBe(expected);
  });
});

describe("how the document is derived", () => {
  const routes = () =>
    new Elysia()
      .get("/api/v1/things/:id", () => ({ id: "x" }), {
        params: t.Object({ id: t.String() }),
        response: t.Object({ id: t.String() }),
        detail: failures({ summary: "A thing" }, "NOT_FOUND"),
      })
      .get("/healthz", () => "ok", { response: t.String(), detail: { summary: "Up" } }).routes;

  test("a route's declared failure adds its status; the access policy adds the key's", () => {
    const planted = openApiDocument(routes(), "http://example.test") as unknown as Document;
    const thing = planted.paths["/api/v1/things/{id}"]?.get as Operation;
    expect(codesOf(thing.responses["404"] ?? {})).toEqual(["NOT_FOUND"]);
    expect(codesOf(thing.responses["401"] ?? {})).toEqual(["UNAUTHORIZED"]);
    const health = planted.paths["/healthz"]?.get as Operation;
    expect(health.responses["404"]).toBeUndefined();
    expect(health.responses["401"]).toBeUndefined();
    expect(health.security).toEqual([]);
  });

  test("a route that documents no response, or a wildcard without its parameter, is refused", () => {
    const bare = new Elysia().get("/x", () => "x", { detail: { summary: "x" } }).routes;
    expect(() => openApiDocument(bare, "http://example.test")).toThrow("documents no response");
    const wildcard = new Elysia().get("/files/*", () => "x", { response: t.String(), detail: { summary: "x" } }).routes;
    expect(() => openApiDocument(wildcard, "http://example.test")).toThrow("wildcard");
  });

  test("Elysia's numeric query types become the plain JSON type", () => {
    expect(wireSchema(t.Integer({ minimum: 1 }))).toEqual({ type: "integer", minimum: 1 });
    expect(wireSchema(t.Union([t.Literal("C"), t.Null()]))).toEqual({
      anyOf: [{ const: "C", type: "string" }, { type: "null" }],
    });
  });
});
