import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { createGate } from "../../../shared/auth/webAuth";
import type { Deps } from "../../../shared/context/deps";
import { AppError } from "../../../shared/core/errors";
import { call, createTestAccount, errorOf, json, mcpCall, type TestApp } from "../../helpers/http";
import { processEnvFor, testDeps, testWorld } from "../../helpers/infra";
import { sessionCookieOf, TEST_PASSWORD, uniqueEmail, webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
  call(app, "/api/auth/signin", { method: "POST", body: { email, password }, headers });

async function sessionRow(accountId: string) {
  const [row] = await deps.sql<{ tokenHash: Buffer; csrfToken: string; expiresAt: Date; absolute: Date }[]>`
    select token_hash as "tokenHash", csrf_token as "csrfToken", expires_at as "expiresAt",
      absolute_expires_at as absolute
    from web_sessions where account_id = ${accountId} order by id desc limit 1`;
  if (!row) throw new Error("no session row");
  return row;
}

describe("sign-up", () => {
  test("creates a free account, sets a Secure HttpOnly SameSite=Lax cookie, and stores only its hash", async () => {
    const email = uniqueEmail("Mixed.Case");
    const response = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(201);
    const body = await json<{ account: { id: string; email: string; plan: string }; csrfToken: string }>(response);
    expect(body.account).toEqual({ id: expect.any(String), email: email.toLowerCase(), plan: "free" });
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^sid=[A-Za-z0-9_-]{43}; /);
    for (const attribute of [
      "Path=/",
      "HttpOnly",
      "SameSite=Lax",
      "Secure",
      `Max-Age=${deps.env.WEB_SESSION_MAX_SECONDS}`,
    ]) {
      expect(cookie.split("; ")).toContain(attribute);
    }
    const token = sessionCookieOf(response).slice("sid=".length);
    const row = await sessionRow(body.account.id);
    expect(row.tokenHash.toString("hex")).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(row.tokenHash.toString("base64url")).not.toBe(token);
    expect(row.csrfToken).toBe(body.csrfToken);
    // No API key is made behind the user's back: the dashboard creates them.
    const [keys] = await deps.sql<{ count: number }[]>`
      select count(*)::int as count from api_keys where account_id = ${body.account.id}`;
    expect(keys?.count).toBe(0);
    const session = await call(app, "/api/auth/session", { headers: { cookie: sessionCookieOf(response) } });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({
      account: body.account,
      csrfToken: body.csrfToken,
      expiresAt: expect.stringMatching(/Z$/),
    });
  });

  test("password and email rules are 400 with details; a taken email (any case) is 409", async () => {
    const short = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: uniqueEmail(), password: "short" },
    });
    expect(short.status).toBe(400);
    const error = await errorOf(short);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toEqual([expect.objectContaining({ in: "body", path: "/password" })]);
    const long = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: uniqueEmail(), password: "x".repeat(257) },
    });
    expect(long.status).toBe(400);
    const badEmail = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: "not an email", password: TEST_PASSWORD },
    });
    expect(badEmail.status).toBe(400);
    expect((await errorOf(badEmail)).details).toEqual([expect.objectContaining({ path: "/email" })]);
    const user = await webUser(app, deps);
    const taken = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: user.email.toUpperCase(), password: TEST_PASSWORD },
    });
    expect(taken.status).toBe(409);
    expect((await errorOf(taken)).code).toBe("CONFLICT");
  });

  test("a browser's Origin from another site is refused; this site's is accepted", async () => {
    const foreign = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: uniqueEmail(), password: TEST_PASSWORD },
      headers: { origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect((await errorOf(foreign)).code).toBe("CSRF_FAILED");
    const same = await call(app, "/api/auth/signup", {
      method: "POST",
      body: { email: uniqueEmail(), password: TEST_PASSWORD },
      headers: { origin: "http://localhost" },
    });
    expect(same.status).toBe(201);
    const user = await webUser(app, deps);
    const crossSignIn = await signIn(user.email, TEST_PASSWORD, { origin: "https://evil.example" });
    expect(crossSignIn.status).toBe(403);
  });
});

describe("sign-in", () => {
  test("the right password signs in with a new session; wrong password and unknown email get the same 401", async () => {
    const user = await webUser(app, deps);
    const ok = await signIn(user.email.toUpperCase(), TEST_PASSWORD);
    expect(ok.status).toBe(200);
    const body = await json<{ account: { id: string }; csrfToken: string }>(ok);
    expect(body.account.id).toBe(user.accountId);
    expect(sessionCookieOf(ok)).not.toBe(user.cookie);
    expect(body.csrfToken).not.toBe(user.csrfToken);
    const wrong = await signIn(user.email, "not the password");
    const unknown = await signIn(uniqueEmail("nobody"), TEST_PASSWORD);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [await errorOf(wrong), await errorOf(unknown)];
    expect(a.message).toBe(b.message);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  test("an account made by the admin CLI (no password) cannot sign in", async () => {
    const email = uniqueEmail("api-only");
    const account = await createTestAccount(deps, "go");
    await deps.sql`update accounts set email = ${email} where id = ${account.accountId}`;
    expect((await signIn(email, TEST_PASSWORD)).status).toBe(401);
  });

  test("five failures for one email are throttled: the sixth try is 429 even with the right password", async () => {
    const user = await webUser(app, deps);
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, `wrong password ${i}`)).status).toBe(401);
    const throttled = await signIn(user.email, TEST_PASSWORD);
    expect(throttled.status).toBe(429);
    expect((await errorOf(throttled)).code).toBe("RATE_LIMITED");
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another account is not affected.
    const other = await webUser(app, deps);
    expect((await signIn(other.email, TEST_PASSWORD)).status).toBe(200);
  });

  test("parallel guesses cannot outrun the count: of 12 at once, at most 5 are checked", async () => {
    const user = await webUser(app, deps);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(user.email, `parallel guess ${i}`).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });

  test("a success clears earlier failures", async () => {
    const user = await webUser(app, deps);
    for (let i = 0; i < 4; i++) await signIn(user.email, "wrong password!");
    expect((await signIn(user.email, TEST_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) await signIn(user.email, "wrong password!");
    expect((await signIn(user.email, TEST_PASSWORD)).status).toBe(200);
  });
});

describe("the password-hashing gate", () => {
  test("runs at most N at once, queues up to the limit, refuses the rest with 503, and hands slots on", async () => {
    const gate = createGate(2, 1);
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const job = (id: number) =>
      gate.run(async () => {
        started.push(id);
        await new Promise<void>((resolve) => releases.push(resolve));
        return id;
      });
    const first = job(1);
    const second = job(2);
    const third = job(3);
    await Bun.sleep(0);
    expect(started).toEqual([1, 2]);
    const refused = await job(4).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe("UNAVAILABLE");
    expect((refused as AppError).headers["Retry-After"]).toBeDefined();
    releases[0]?.();
    expect(await first).toBe(1);
    await Bun.sleep(0);
    expect(started).toEqual([1, 2, 3]);
    releases[1]?.();
    releases[2]?.();
    expect(await Promise.all([second, third])).toEqual([2, 3]);
    // All slots are free again.
    const again = [job(5), job(6)];
    await Bun.sleep(0);
    expect(started).toEqual([1, 2, 3, 5, 6]);
    for (const release of releases.slice(3)) release();
    expect(await Promise.all(again)).toEqual([5, 6]);
  });
});

describe("sessions", () => {
  test("sign-out needs the CSRF token, then ends the session server-side and clears the cookie", async () => {
    const user = await webUser(app, deps);
    const missing = await webCall(app, user, "/api/auth/signout", { method: "POST", csrf: null });
    expect(missing.status).toBe(403);
    expect((await errorOf(missing)).code).toBe("CSRF_FAILED");
    const wrong = await webCall(app, user, "/api/auth/signout", { method: "POST", csrf: "x".repeat(43) });
    expect(wrong.status).toBe(403);
    expect((await webCall(app, user, "/api/auth/session")).status).toBe(200);
    const out = await webCall(app, user, "/api/auth/signout", { method: "POST" });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^sid=; .*Max-Age=0/);
    const [sessions] = await deps.sql<{ count: number }[]>`
      select count(*)::int as count from web_sessions where account_id = ${user.accountId}`;
    expect(sessions?.count).toBe(0);
    // The old cookie (a copy kept by an attacker, say) no longer works.
    const after = await webCall(app, user, "/api/auth/session");
    expect(after.status).toBe(401);
    expect(after.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  test("an expired session is refused and its cookie cleared", async () => {
    const user = await webUser(app, deps);
    await deps.sql`update web_sessions set expires_at = now() - interval '1 second' where account_id = ${user.accountId}`;
    const response = await webCall(app, user, "/api/auth/session");
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("UNAUTHORIZED");
    expect(response.headers.get("set-cookie")).toMatch(/^sid=; .*Max-Age=0/);
  });

  test("expiry slides with use, but never past the absolute limit", async () => {
    const user = await webUser(app, deps);
    // Last seen two minutes ago, ten seconds left: a request pushes the expiry to now + idle.
    await deps.sql`update web_sessions set last_seen_at = now() - interval '2 minutes',
      expires_at = now() + interval '10 seconds' where account_id = ${user.accountId}`;
    const slid = await json<{ expiresAt: string }>(await webCall(app, user, "/api/auth/session"));
    const [clock] = await deps.sql<{ now: Date }[]>`select now() as now`;
    const ahead = (new Date(slid.expiresAt).getTime() - (clock?.now.getTime() ?? 0)) / 1000;
    expect(ahead).toBeGreaterThan(deps.env.WEB_SESSION_IDLE_SECONDS - 60);
    expect((await sessionRow(user.accountId)).expiresAt.toISOString()).toBe(slid.expiresAt);
    // Near the absolute limit, sliding stops there; past it, the session is over however active.
    await deps.sql`update web_sessions set last_seen_at = now() - interval '2 minutes',
      expires_at = now() + interval '5 seconds', absolute_expires_at = now() + interval '20 seconds'
      where account_id = ${user.accountId}`;
    const capped = await json<{ expiresAt: string }>(await webCall(app, user, "/api/auth/session"));
    const row = await sessionRow(user.accountId);
    expect(capped.expiresAt).toBe(row.absolute.toISOString());
    await deps.sql`update web_sessions set expires_at = now() - interval '1 second',
      absolute_expires_at = now() - interval '1 second' where account_id = ${user.accountId}`;
    expect((await webCall(app, user, "/api/auth/session")).status).toBe(401);
  });

  test("a garbage or unknown cookie is 401", async () => {
    for (const cookie of ["sid=nonsense", `sid=${"A".repeat(43)}`, "other=1"]) {
      const response = await call(app, "/api/auth/session", { headers: { cookie } });
      expect(response.status).toBe(401);
    }
    expect((await call(app, "/api/dashboard/usage")).status).toBe(401);
  });
});

describe("password reset by an operator", () => {
  test("admin accounts:set-password prints a new password, which works; the old one and every session do not", async () => {
    const user = await webUser(app, deps);
    const { env } = await testWorld();
    const cli = Bun.spawnSync(
      [process.execPath, "scripts/admin.ts", "accounts:set-password", "--account", user.accountId],
      { env: { ...processEnvFor(env), LOG_LEVEL: "silent" } },
    );
    expect(cli.exitCode).toBe(0);
    const out = JSON.parse(cli.stdout.toString()) as { accountId: string; password: string };
    expect(out.accountId).toBe(user.accountId);
    expect(out.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await webCall(app, user, "/api/auth/session")).status).toBe(401);
    expect((await signIn(user.email, TEST_PASSWORD)).status).toBe(401);
    expect((await signIn(user.email, out.password)).status).toBe(200);
    const unknown = Bun.spawnSync(
      [process.execPath, "scripts/admin.ts", "accounts:set-password", "--account", crypto.randomUUID()],
      { env: { ...processEnvFor(env), LOG_LEVEL: "silent" } },
    );
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.toString()).toContain("NOT_FOUND");
  });
});

describe("where each credential works", () => {
  test("the session cookie is ignored on /api/v1/* and /api/mcp (401 without a key)", async () => {
    const user = await webUser(app, deps, { plan: "pro" });
    const v1 = await webCall(app, user, "/api/v1/account");
    expect(v1.status).toBe(401);
    expect((await errorOf(v1)).code).toBe("UNAUTHORIZED");
    expect((await webCall(app, user, "/api/v1/health/profile")).status).toBe(401);
    const mcp = await mcpCall(
      app,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { cookie: user.cookie, "x-csrf-token": user.csrfToken },
    );
    expect(mcp.status).toBe(401);
  });

  test("an API key is not accepted on website paths", async () => {
    const account = await createTestAccount(deps, "pro");
    for (const path of [
      "/api/auth/session",
      "/api/dashboard/usage",
      "/api/dashboard/keys",
      "/api/health/profile",
      "/api/chats?surface=health",
    ]) {
      const response = await call(app, path, { key: account.apiKey });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe("UNAUTHORIZED");
    }
    const viaHeader = await call(app, "/api/dashboard/keys", {
      method: "POST",
      headers: { "x-api-key": account.apiKey },
    });
    expect(viaHeader.status).toBe(401);
  });
});

describe("over a real port", () => {
  test("sign-up, the cookie round trip, throttling by client address and sign-out through Bun's server", async () => {
    const server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const base = `http://127.0.0.1:${server.server?.port}`;
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), origin: base, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const email = uniqueEmail("port");
      const signedUp = await post("/api/auth/signup", { email, password: TEST_PASSWORD });
      expect(signedUp.status).toBe(201);
      expect(signedUp.headers.getSetCookie()).toHaveLength(1);
      const cookie = sessionCookieOf(signedUp);
      const { csrfToken } = (await signedUp.json()) as { csrfToken: string };
      expect((await fetch(`${base}/api/auth/session`, { headers: { cookie } })).status).toBe(200);
      for (let i = 0; i < 5; i++)
        expect((await post("/api/auth/signin", { email, password: "wrong guess!" })).status).toBe(401);
      expect((await post("/api/auth/signin", { email, password: TEST_PASSWORD })).status).toBe(429);
      // The same email through the in-process app has another client address ("unknown"): not throttled.
      expect((await signIn(email, TEST_PASSWORD)).status).toBe(200);
      // Sign-out takes no body (one would be 415).
      const out = await post("/api/auth/signout", undefined, { cookie, "x-csrf-token": csrfToken });
      expect(out.status).toBe(204);
      expect((await fetch(`${base}/api/auth/session`, { headers: { cookie } })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
