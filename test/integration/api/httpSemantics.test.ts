import { beforeAll, describe, expect, test } from "bun:test";
import { type TSchema, Type } from "@sinclair/typebox";
import { Elysia, type InternalRoute, t } from "elysia";
import { createApp } from "../../../api/app";
import { API_KEY_CHALLENGE, credentialFrom, SESSION_CHALLENGE } from "../../../api/plugins/access";
import { corsAllowsOrigin } from "../../../api/plugins/cors";
import { allowedHosts, hostGuard } from "../../../api/plugins/hostGuard";
import {
  allowMatcher,
  assertPoliciesCoverRoutes,
  createRouteTable,
  pathPattern,
  routeMatcher,
} from "../../../api/plugins/routeTable";
import type { Deps } from "../../../shared/context/deps";
import { parseEnv, publicUrl } from "../../../shared/core/env";
import { AppError } from "../../../shared/core/errors";
import { DEFAULT_LIMIT } from "../../../shared/papers/schemas";
import { createTracker, healthAccount } from "../../helpers/health";
import { call, createTestAccount, errorOf, json, mcpCall, type TestAccount, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";
import { type WebUser, webCall, webUser } from "../../helpers/website";

/**
 * HTTP semantics on every path: 405 with `Allow` (401 first where a credential is needed), a challenge
 * on every 401, which credentials count, the Host/Origin guard on /api/mcp, CORS, empty query values.
 */

const METRICS_TOKEN = "http-semantics-metrics-token";
const INVALID_TOKEN = `${API_KEY_CHALLENGE}, error="invalid_token"`;

let deps: Deps;
let app: TestApp;
let account: TestAccount;
let other: TestAccount;
let web: WebUser;
let trackerId: string;

beforeAll(async () => {
  // Search indexes of this file's own with the demo papers (no MONDO terms: not searched here).
  deps = await ownIndexes(await testDeps(), "http", { conditions: false });
  app = createApp(deps);
  account = await healthAccount(deps, app, { plan: "pro" });
  other = await createTestAccount(deps, "free");
  web = await webUser(app, deps, { plan: "pro" });
  trackerId = (await createTracker(app, account.apiKey)).id;
}, 60_000);

const withKey = (path: string, method: string) => call(app, path, { method, key: account.apiKey });

const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "semantics", version: "1" } };
const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params };

/** The error code and `Allow`/`WWW-Authenticate` of an answer, after checking its status and error body. */
async function refusal(response: Response, status: number) {
  expect(response.status).toBe(status);
  const { code, details } = await errorOf(response);
  return { code, details, allow: response.headers.get("allow"), challenge: response.headers.get("www-authenticate") };
}

/** `"PUT /api/v1/account"` → its method and path. */
const route = (line: string) => {
  const [method = "", path = ""] = line.split(" ");
  return { method, path };
};

describe("the route table behind Allow", () => {
  const planted = [
    ...["GET /a", "POST /a", "GET /a/:id", "DELETE /a/:id", "PUT /a/:id/content", "GET /files/*"],
    ...["POST /files/upload", "GET /opt/:x?", "PROPFIND /dav", "COPY /dav", "ALL /any", "GET /v1.0/x", "OPTIONS /*"],
  ].map(route);

  test("pathPattern: `:name` is one non-empty segment (`:name?` may be empty), `*` the rest; dots are literal", () => {
    const matches = (pair: string) => pathPattern(route(pair).method).test(route(pair).path);
    expect(["/a/:id /a/1", "/opt/:x? /opt/", "/files/* /files/a/b/c"].map(matches)).toEqual([true, true, true]);
    expect(["/a/:id /a/", "/a/:id /a/1/2", "/v1.0/x /v1a0/x"].map(matches)).toEqual([false, false, false]);
  });

  test("allowMatcher: the union over every matching route, HEAD with GET, OPTIONS always, in a fixed order", () => {
    const allowOf = allowMatcher(planted);
    const expected = {
      "/a": "GET, HEAD, POST, OPTIONS",
      "/a/1": "GET, HEAD, DELETE, OPTIONS",
      "/a/1/content": "PUT, OPTIONS",
      "/files/upload": "GET, HEAD, POST, OPTIONS",
      "/files/x/y": "GET, HEAD, OPTIONS",
      "/opt/": "GET, HEAD, OPTIONS",
      "/dav": "OPTIONS, COPY, PROPFIND",
    };
    expect(Object.fromEntries(Object.keys(expected).map((path) => [path, allowOf(path)]))).toEqual(expected);
    // No route (the CORS plugin's `OPTIONS /*` does not count), or one that answers every method.
    for (const path of ["/nope", "/a/1/content/more", "/any"]) expect(allowOf(path)).toBeUndefined();
    const routeOf = routeMatcher(planted);
    expect(routeOf("POST", "/files/upload")).toBe("/files/upload");
    expect(routeOf("GET", "/files/upload")).toBe("/files/*");
  });

  test("a JSON body that would read a number or boolean from text is refused when the app is assembled", () => {
    const body = (schema: TSchema) =>
      new Elysia().post("/x", () => "x", { body: t.Object({ n: schema }) }).routes as InternalRoute[];
    expect(() => createRouteTable().load(body(t.Integer()))).toThrow("its JSON body reads /n from text");
    expect(() => createRouteTable().load(body(t.Numeric()))).toThrow("/n");
    expect(() => createRouteTable().load(body(t.BooleanString()))).toThrow("/n");
    expect(() => createRouteTable().load(body(Type.Integer()))).not.toThrow();
    const bare = new Elysia().post("/x", () => "x", { body: Type.Number() }).routes as InternalRoute[];
    expect(() => createRouteTable().load(bare)).toThrow("reads / from text");
    // Query strings are text: there Elysia's integers are the right tool.
    const query = new Elysia().get("/x", () => "x", { query: t.Object({ n: t.Integer() }) }).routes;
    expect(() => createRouteTable().load(query as InternalRoute[])).not.toThrow();
  });

  test("a route on a public path its policy does not list would take no credential: refused when assembled", () => {
    const shared = (method: string) => [route(`${method} /api/v1/shared/:token`)];
    expect(() => assertPoliciesCoverRoutes(shared("DELETE"))).toThrow("answers only GET");
    expect(() => assertPoliciesCoverRoutes(shared("GET"))).not.toThrow();
    expect(() => assertPoliciesCoverRoutes([route("GET /api/v1/uploads/:fileId/content")])).toThrow("only PUT");
    // The upload's other paths need a key as before.
    expect(() => assertPoliciesCoverRoutes([route("GET /api/v1/uploads/:fileId")])).not.toThrow();
  });
});

describe("405 Method Not Allowed", () => {
  test("a method a path lacks → 405 METHOD_NOT_ALLOWED with the exact Allow of the app's routes; the others answer", async () => {
    const log = `/api/v1/health/trackers/${trackerId}`;
    const expected: Record<string, string> = {
      "PUT /api/v1/account": "GET, HEAD, OPTIONS",
      "TRACE /api/v1/papers/search": "GET, HEAD, POST, OPTIONS",
      "PATCH /api/v1/papers/search": "GET, HEAD, POST, OPTIONS",
      "DELETE /api/v1/papers/search": "GET, HEAD, POST, OPTIONS",
      "POST /api/v1/papers/0704.0476": "GET, HEAD, OPTIONS",
      [`PUT ${log}`]: "GET, HEAD, PATCH, DELETE, OPTIONS",
      [`GET ${log}/entries`]: "POST, OPTIONS",
      "POST /api/v1/uploads/some-file": "GET, HEAD, OPTIONS",
      "GET /api/mcp": "POST, OPTIONS",
      "DELETE /api/mcp": "POST, OPTIONS",
      "PUT /api/mcp": "POST, OPTIONS",
      "HEAD /api/mcp": "POST, OPTIONS",
    };
    const answered: Record<string, string | null> = {};
    for (const line of Object.keys(expected)) {
      const { method, path } = route(line);
      const { code, allow } = await refusal(await withKey(path, method), 405);
      answered[line] = code === "METHOD_NOT_ALLOWED" ? allow : code;
    }
    expect(answered).toEqual(expected);
    // The methods a path has are answered: DELETE on the log, HEAD where GET is.
    const deleted = await withKey(log, "DELETE");
    expect([deleted.status, await deleted.json()]).toEqual([200, { deleted: true }]);
    expect((await call(app, "/healthz", { method: "HEAD" })).status).toBe(200);
    // Paths without a credential policy answer 405 to anyone; a website path to its session.
    expect((await refusal(await call(app, "/api/mcp", { method: "GET" }), 405)).allow).toBe("POST, OPTIONS");
    expect((await refusal(await call(app, "/healthz", { method: "POST" }), 405)).allow).toBe("GET, HEAD, OPTIONS");
    const dashboard = await webCall(app, web, "/api/dashboard/keys", { method: "PUT" });
    expect((await refusal(dashboard, 405)).allow).toBe("GET, HEAD, POST, OPTIONS");
  });

  test("a path no route has stays 404 ROUTE_NOT_FOUND without Allow; no credential on a keyed path is 401, not 405", async () => {
    const unknown = ["PUT /api/v1/no-such", "GET /api/v1/health/trackers/x/y", "DELETE /no"].map(route);
    for (const { method, path } of unknown) {
      expect(await refusal(await withKey(path, method), 404)).toMatchObject({ code: "ROUTE_NOT_FOUND", allow: null });
    }
    const keyed = ["PUT /api/v1/account", "PATCH /api/v1/papers/search", "PUT /api/v1/health/trackers/x"];
    for (const { method, path } of [...keyed, "PUT /api/dashboard/keys"].map(route)) {
      const { code, allow } = await refusal(await call(app, path, { method }), 401);
      expect([code, allow]).toEqual(["UNAUTHORIZED", null]);
    }
  });
});

describe("WWW-Authenticate on every 401, and which credentials count", () => {
  const challengeOf = async (response: Response) => (await refusal(response, 401)).challenge;
  const account$ = (headers: Record<string, string>) => call(app, "/api/v1/account", { headers });

  test('no key: the bare challenge; an unknown key in either header: error="invalid_token"', async () => {
    expect(await challengeOf(await call(app, "/api/v1/account"))).toBe(API_KEY_CHALLENGE);
    // The MCP endpoint is also an OAuth protected resource: its challenge names its metadata (RFC 9728).
    const metadata = `${publicUrl(deps.env)}/.well-known/oauth-protected-resource/api/mcp`;
    expect(await challengeOf(await mcpCall(app, initialize, {}))).toBe(
      `${API_KEY_CHALLENGE}, resource_metadata="${metadata}"`,
    );
    const bogus = `phk_${"0".repeat(40)}`;
    expect(await challengeOf(await account$({ authorization: `Bearer ${bogus}` }))).toBe(INVALID_TOKEN);
    expect(await challengeOf(await account$({ "x-api-key": bogus }))).toBe(INVALID_TOKEN);
  });

  test('two different keys, both valid → 401 error="invalid_request"; the same key twice → 200', async () => {
    const both = (second: string) => account$({ authorization: `Bearer ${account.apiKey}`, "x-api-key": second });
    expect(await challengeOf(await both(other.apiKey))).toBe(`${API_KEY_CHALLENGE}, error="invalid_request"`);
    const same = await both(account.apiKey);
    expect(same.status).toBe(200);
    expect((await json<{ accountId: string }>(same)).accountId).toBe(account.accountId);
  });

  test("another scheme beside x-api-key is a proxy's → 200; alone → 401; a malformed Bearer → 401 beside any key", async () => {
    const basic = `Basic ${btoa("proxy:secret")}`;
    expect((await account$({ authorization: basic, "x-api-key": account.apiKey })).status).toBe(200);
    expect(await challengeOf(await account$({ authorization: basic }))).toBe(API_KEY_CHALLENGE);
    for (const authorization of [`Bearer ${account.apiKey} b`, "Bearer a b", "Bearer", "Bearer "]) {
      expect(await challengeOf(await account$({ authorization, "x-api-key": account.apiKey }))).toBe(INVALID_TOKEN);
    }
    // The scheme is case-insensitive and space around the key is not part of it.
    expect(credentialFrom(new Headers({ authorization: "bearer  k1 ", "x-api-key": " k1" }))).toBe("k1");
  });

  test("a website path without a live session: the cookie challenge naming the sign-in form", async () => {
    expect(await challengeOf(await call(app, "/api/auth/session"))).toBe(SESSION_CHALLENGE);
    expect(await challengeOf(await call(app, "/api/health/profile"))).toBe(SESSION_CHALLENGE);
    const stale = await call(app, "/api/dashboard/keys", { headers: { cookie: "sid=not-a-session" } });
    expect(await challengeOf(stale)).toBe(SESSION_CHALLENGE);
  });

  test("/metrics with a wrong token, an API key or none: its own realm", async () => {
    const scraper = createApp({ ...deps, env: { ...deps.env, METRICS_TOKEN } });
    for (const key of ["not-the-metrics-token", account.apiKey, undefined]) {
      expect(await challengeOf(await call(scraper, "/metrics", { key }))).toBe('Bearer realm="papers-health-metrics"');
    }
    expect((await call(scraper, "/metrics", { key: METRICS_TOKEN })).status).toBe(200);
  });
});

describe("the Host and Origin guard on /api/mcp", () => {
  const mcp = (target: TestApp, headers: Record<string, string>) =>
    mcpCall(target, initialize, { authorization: `Bearer ${account.apiKey}`, ...headers });
  /** The test env with these variables parsed as at boot (only these: parseEnv's defaults would replace prefixes). */
  const envWith = (vars: Record<string, string>) => {
    const parsed: Record<string, unknown> = parseEnv(vars);
    return { ...deps.env, ...Object.fromEntries(Object.keys(vars).map((name) => [name, parsed[name]])) };
  };

  test("a Host this server does not answer to → 403 FORBIDDEN, before the key is looked at; loopback passes", async () => {
    for (const host of ["evil.example.com", "evil.example.com:3000", "localhost.evil.example.com"]) {
      expect((await refusal(await mcp(app, { host }), 403)).code).toBe("FORBIDDEN");
    }
    const anonymous = await refusal(await mcpCall(app, initialize, { host: "evil.example.com" }), 403);
    expect(anonymous).toMatchObject({ code: "FORBIDDEN", challenge: null });
    // Loopback names pass in the test environment: its PUBLIC_URL is loopback.
    const loopback = ["localhost", "localhost:3000", "127.0.0.1:8080", "[::1]:3000", "LOCALHOST"];
    for (const host of loopback) expect((await mcp(app, { host })).status).toBe(200);
  });

  test("any Origin passes while CORS allows every origin; a narrowed list refuses the others", async () => {
    expect((await mcp(app, { host: "localhost", origin: "http://evil.example.com" })).status).toBe(200);
    expect(corsAllowsOrigin("http://evil.example.com")).toBe(true);
    expect(corsAllowsOrigin("http://evil.example.com", ["https://app.example"])).toBe(false);
    const guard = hostGuard(deps.env, ["https://app.example"]);
    const post = (headers: Record<string, string>) =>
      new Request("http://localhost/api/mcp", { method: "POST", headers });
    expect(() => guard(post({ host: "localhost", origin: "https://app.example" }))).not.toThrow();
    expect(() => guard(post({ host: "localhost" }))).not.toThrow();
    const refused = () => guard(post({ host: "localhost", origin: "http://evil.example.com" }));
    expect(refused).toThrow(new AppError("FORBIDDEN", "Requests from this Origin are not accepted on /api/mcp."));
  });

  test("ALLOWED_HOSTS adds hosts (any port); PUBLIC_URL's host passes; loopback only in development or as PUBLIC_URL", async () => {
    const proxied = createApp({ ...deps, env: envWith({ ALLOWED_HOSTS: "mcp.internal, Other.Example:9000" }) });
    const named = ["mcp.internal:8080", "mcp.internal", "other.example"];
    for (const host of named) expect((await mcp(proxied, { host })).status).toBe(200);
    expect((await mcp(proxied, { host: "evil.example.com" })).status).toBe(403);
    const deployed = createApp({ ...deps, env: envWith({ PUBLIC_URL: "https://papers.example.org" }) });
    expect((await mcp(deployed, { host: "papers.example.org" })).status).toBe(200);
    expect((await mcp(deployed, { host: "localhost" })).status).toBe(403);
    const development = parseEnv({ NODE_ENV: "development", PUBLIC_URL: "https://papers.example.org" });
    expect(allowedHosts(development)).toEqual(new Set(["papers.example.org", "localhost", "127.0.0.1", "[::1]"]));
  });

  test("other paths are not guarded: REST, the discovery card, preflights", async () => {
    const evil = { host: "evil.example.com" };
    expect((await call(app, "/api/v1/account", { key: account.apiKey, headers: evil })).status).toBe(200);
    expect((await call(app, "/api/mcp/server-card", { headers: evil })).status).toBe(200);
    const preflight = { ...evil, origin: "https://agent.example", "access-control-request-method": "POST" };
    expect((await call(app, "/api/mcp", { method: "OPTIONS", headers: preflight })).status).toBe(204);
  });
});

describe("CORS", () => {
  test("answers, errors included, let a page read the request id, chat id, limits and challenge", async () => {
    const origin = { origin: "https://app.example" };
    for (const response of [
      await call(app, "/api/v1/account", { key: account.apiKey, headers: origin }),
      await call(app, "/api/v1/account", { headers: origin }),
      await call(app, "/api/mcp", { method: "GET", headers: origin }),
    ]) {
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = new Set(response.headers.get("access-control-expose-headers")?.split(/,\s*/));
      const wanted =
        "X-Chat-Id X-Request-Id Retry-After WWW-Authenticate RateLimit-Limit RateLimit-Remaining RateLimit-Reset";
      expect(wanted.split(" ").filter((name) => !exposed.has(name))).toEqual([]);
    }
  });

  test("preflights → 204 with the MCP lists on MCP and discovery paths, the REST lists elsewhere", async () => {
    const lists = async (path: string) => {
      const headers = { origin: "https://a.example", "access-control-request-method": "POST" };
      const response = await call(app, path, { method: "OPTIONS", headers });
      expect([response.status, response.headers.get("access-control-max-age")]).toEqual([204, "600"]);
      const allow = (name: string) => response.headers.get(`access-control-allow-${name}`);
      return `${allow("methods")} | ${allow("headers")}`;
    };
    const mcp = "Content-Type, Authorization, x-api-key, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";
    expect(await lists("/api/mcp")).toBe(`GET, POST, DELETE, OPTIONS | ${mcp}`);
    expect(await lists("/.well-known/mcp.json")).toBe(`GET, POST, DELETE, OPTIONS | ${mcp}`);
    const rest = "Content-Type, Authorization, x-api-key, Last-Event-ID, X-Request-Id";
    expect(await lists("/api/v1/papers/search")).toBe(`GET, POST, PUT, PATCH, DELETE, OPTIONS | ${rest}`);
    expect(await lists("/api/v1/uploads/a/content")).toBe(`GET, POST, PUT, PATCH, DELETE, OPTIONS | ${rest}`);
  });
});

describe("an empty optional query value counts as absent", () => {
  const search = (query: string) => call(app, `/api/v1/papers/search?${query}`, { key: account.apiKey });
  const pageOf = async (query: string) => {
    const response = await search(query);
    expect(response.status).toBe(200);
    return json<{ data: unknown[]; pagination: { page: number; limit: number; hasMore: boolean } }>(response);
  };

  test("limit= → 200 with the default limit; page=&limit=5 → 200, page 0", async () => {
    const defaulted = await pageOf("q=quantum&limit=");
    expect(defaulted.pagination).toMatchObject({ page: 0, limit: DEFAULT_LIMIT, hasMore: true });
    expect(defaulted.data).toHaveLength(DEFAULT_LIMIT);
    const first = await pageOf("q=quantum&page=&limit=5");
    expect(first.pagination).toMatchObject({ page: 0, limit: 5 });
    expect(first.data).toEqual(defaulted.data.slice(0, 5));
  });

  test("q= (required) → 400 naming q; other routes' optional values are absent too", async () => {
    const { code, details } = await refusal(await search("q=&limit=5"), 400);
    expect(code).toBe("VALIDATION_FAILED");
    expect(details).toContainEqual(expect.objectContaining({ in: "query", path: "/q" }));
    expect((await call(app, "/api/v1/health/trackers?limit=&cursor=", { key: account.apiKey })).status).toBe(200);
    expect((await call(app, "/api/v1/health/symptoms?kind=", { key: account.apiKey })).status).toBe(200);
  });

  test("a blank (not empty) integer is refused naming its parameter, not the body", async () => {
    const { details } = await refusal(await search("q=quantum&limit=%20"), 400);
    expect(details).toContainEqual(expect.objectContaining({ in: "query", path: "/limit" }));
  });
});
