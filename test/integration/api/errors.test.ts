import { beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { createApp } from "../../../api/app";
import { errorHandler } from "../../../api/plugins/errors";
import { requestContext } from "../../../api/plugins/requestContext";
import type { Deps } from "../../../shared/context/deps";
import { AppError, ERROR_KINDS } from "../../../shared/core/errors";
import { call, createTestAccount, errorOf, type TestAccount, type TestApp } from "../../helpers/http";
import { logLines, testDeps, testLog } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
  account = await createTestAccount(deps, "pro");
});

/**
 * The real error and request-context plugins around a JSON route, for body cases while the
 * service's own POST routes are still to come (they get their own cases in their issues).
 */
function bodyApp() {
  return new Elysia({ normalize: false })
    .use(errorHandler(testLog))
    .use(requestContext(testLog))
    .post("/echo", ({ body }) => body, {
      body: t.Object(
        { title: t.String({ minLength: 1, maxLength: 5 }), n: t.Optional(t.Integer()) },
        { additionalProperties: false },
      ),
    })
    .get("/boom", () => {
      throw new Error("secret internals: password=hunter2");
    })
    .get("/busy", () => {
      throw new AppError("UNAVAILABLE", "Redis is unavailable; retry shortly.", { headers: { "Retry-After": "5" } });
    });
}

function post(target: ReturnType<typeof bodyApp>, body: string, contentType = "application/json") {
  return target.handle(
    new Request("http://localhost/echo", { method: "POST", headers: { "content-type": contentType }, body }),
  );
}

describe("one error shape", () => {
  test("malformed JSON → 400 INVALID_JSON", async () => {
    const response = await post(bodyApp(), '{"title": ');
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe("INVALID_JSON");
  });

  test("unknown property → 400 VALIDATION_FAILED naming the property", async () => {
    const response = await post(bodyApp(), JSON.stringify({ title: "ok", user_id: "x" }));
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toContainEqual(expect.objectContaining({ in: "body", path: "/user_id" }));
  });

  test("wrong type and bounds → 400 with one detail per field", async () => {
    const response = await post(bodyApp(), JSON.stringify({ title: "far too long", n: 1.5 }));
    expect(response.status).toBe(400);
    const paths = ((await errorOf(response)).details as { path: string }[]).map((detail) => detail.path);
    expect(paths).toContain("/title");
    expect(paths).toContain("/n");
  });

  test("a valid body passes", async () => {
    const response = await post(bodyApp(), JSON.stringify({ title: "ok", n: 2 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ title: "ok", n: 2 });
  });

  test("5xx bodies never leak internals", async () => {
    const response = await bodyApp().handle(new Request("http://localhost/boom"));
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error.code).toBe("INTERNAL");
    expect(JSON.stringify(error)).not.toContain("hunter2");
  });

  test("503 carries Retry-After and its own message", async () => {
    const response = await bodyApp().handle(new Request("http://localhost/busy"));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect((await errorOf(response)).code).toBe("UNAVAILABLE");
  });

  test("unknown route → 404 ROUTE_NOT_FOUND, with and without a key", async () => {
    for (const path of ["/nope", "/api/v2/papers"]) {
      const response = await call(app, path);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("ROUTE_NOT_FOUND");
    }
    const authed = await call(app, "/api/v1/no-such-resource", { key: account.apiKey });
    expect(authed.status).toBe(404);
    expect((await errorOf(authed)).code).toBe("ROUTE_NOT_FOUND");
  });

  test("invalid query value and unknown query parameter → 400 with details", async () => {
    const bad = await call(app, "/api/v1/health/symptoms?kind=chronic", { key: account.apiKey });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).details).toContainEqual(expect.objectContaining({ in: "query", path: "/kind" }));
    const extra = await call(app, "/api/v1/health/symptoms?kind=acute&limt=5", { key: account.apiKey });
    expect(extra.status).toBe(400);
    expect((await errorOf(extra)).details).toContainEqual(expect.objectContaining({ in: "query", path: "/limt" }));
  });

  test("GET and DELETE on the MCP endpoint → 405 with Allow", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await call(app, "/api/mcp", { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
      expect((await errorOf(response)).code).toBe("METHOD_NOT_ALLOWED");
    }
  });

  test("every response carries X-Request-Id; a plain client id is echoed, an odd one replaced", async () => {
    const echoed = await call(app, "/healthz", { headers: { "x-request-id": "client-trace-0001" } });
    expect(echoed.headers.get("x-request-id")).toBe("client-trace-0001");
    const replaced = await call(app, "/healthz", { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("every status in the table is a 4xx or 5xx and every code is UPPER_SNAKE", () => {
    for (const [code, { status }] of Object.entries(ERROR_KINDS)) {
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });
});

describe("CORS", () => {
  test("preflight on the MCP endpoint: the spec's values, then the headers an MCP client adds, without a key", async () => {
    const response = await call(app, "/api/mcp", {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toBe(
      "Content-Type, Authorization, x-api-key, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
    );
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test("preflight on REST paths also allows PUT and PATCH, and the stream-resume and request-id headers", async () => {
    const response = await call(app, "/api/v1/health/trackers/abc", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "PATCH" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE, OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toBe(
      "Content-Type, Authorization, x-api-key, Last-Event-ID, X-Request-Id",
    );
  });

  test("simple responses carry the origin and exposed headers; no Vary: *, no preflight-only headers", async () => {
    const response = await call(app, "/api/v1/account", {
      key: account.apiKey,
      headers: { origin: "https://x.example" },
    });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("RateLimit-Remaining");
    expect(response.headers.get("vary")).toBeNull();
    // Only a preflight's answer is read for these.
    expect(response.headers.get("access-control-allow-headers")).toBeNull();
    expect(response.headers.get("access-control-allow-methods")).toBeNull();
  });

  test("security headers on every response", async () => {
    for (const response of [await call(app, "/healthz"), await call(app, "/api/v1/account")]) {
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("operability", () => {
  test("exactly one access-log line per request, with its status: success, error and preflight", async () => {
    const cases = [
      { path: "/healthz", method: "GET", status: 200 },
      { path: "/api/v1/account", method: "GET", status: 200, key: account.apiKey },
      { path: "/no-such-route", method: "GET", status: 404 },
      { path: "/api/v1/account", method: "GET", status: 401 },
      { path: "/api/mcp", method: "OPTIONS", status: 204, headers: { "access-control-request-method": "POST" } },
    ];
    for (const item of cases) {
      const id = `log-check-${crypto.randomUUID().slice(0, 8)}`;
      const response = await call(app, item.path, {
        method: item.method,
        key: item.key,
        headers: { "x-request-id": id, ...item.headers },
      });
      expect(response.status).toBe(item.status);
      const lines = logLines
        .map((line) => JSON.parse(line))
        .filter((line) => line.requestId === id && line.msg === "request");
      expect(lines).toHaveLength(1);
      expect(lines[0].status).toBe(item.status);
    }
  });

  test("/healthz answers without dependencies; /readyz reports each dependency", async () => {
    expect(await (await call(app, "/healthz")).json()).toEqual({ status: "ok" });
    const ready = await call(app, "/readyz");
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(body.ready).toBe(true);
    expect(Object.keys(body.checks).sort()).toEqual(["meilisearch", "postgres", "redis"]);
  });

  test("OpenAPI document lists the routes, generated from the validating schemas", async () => {
    const response = await call(app, "/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/healthz",
        "/readyz",
        "/api/v1/account",
        "/api/v1/health/symptoms",
        "/api/v1/health/profile",
        "/api/v1/health/trackers",
        "/api/v1/health/trackers/{trackerId}",
        "/api/v1/health/trackers/{trackerId}/entries",
        "/api/v1/health/trackers/{trackerId}/export",
        "/api/v1/health/trackers/{trackerId}/summary",
        "/api/v1/health/medication",
        "/api/v1/health/chat",
        "/api/v1/health/chat/{chatid}/stream",
        "/api/v1/models",
        "/api/v1/chats",
        "/api/v1/chats/{chatid}/share",
        "/api/v1/shared/{token}",
        "/api/v1/uploads/presign",
        "/api/v1/uploads/{fileId}/content",
        "/api/v1/uploads/complete",
        "/api/v1/uploads/{fileId}",
        "/api/v1/transcribe",
        "/api/v1/papers/search",
        "/api/mcp",
      ]),
    );
    const kind = doc.paths["/api/v1/health/symptoms"]?.get?.parameters?.find((p) => p.name === "kind");
    expect(kind).toBeDefined();
    expect(Object.keys(doc.paths["/api/v1/health/trackers/{trackerId}"] ?? {}).sort()).toEqual([
      "delete",
      "get",
      "patch",
    ]);
    const entryBody = (doc.paths["/api/v1/health/trackers/{trackerId}/entries"]?.post as { requestBody?: unknown })
      ?.requestBody;
    expect(JSON.stringify(entryBody)).toContain("temperatureUnit");
    expect((await call(app, "/docs")).status).toBe(200);
  });
});
