import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createApp } from "../../../api/app";
import { freePort, waitFor } from "../../../scripts/lib/processes";
import { sweepOAuthRecords } from "../../../shared/auth/oauth/sweep";
import { SIGNIN_ACCOUNT_MAX_FAILURES, SIGNIN_ACCOUNT_TURN_SECONDS } from "../../../shared/auth/webAuth";
import type { Deps } from "../../../shared/context/deps";
import { testDeps } from "../../helpers/infra";
import { CALLBACK, connect, type RegisteredClient } from "../../helpers/oauth";
import { TEST_PASSWORD, uniqueEmail, type WebUser, webUser } from "../../helpers/website";

/**
 * The throttles of the open endpoints over a real socket, behind a trusted proxy (TRUSTED_PROXIES
 * names loopback, so X-Forwarded-For names the client): sign-in per email and address and per email
 * alone, sign-up and client registration per address; and the sweep of clients nobody granted.
 */
let deps: Deps;
let url: string;
let stop: () => Promise<void>;
let user: WebUser;
/** The same service with the suite's generous limits, to make accounts with. */
let accounts: ReturnType<typeof createApp>;

beforeAll(async () => {
  const base = await testDeps();
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  deps = {
    ...base,
    env: {
      ...base.env,
      PUBLIC_URL: url,
      TRUSTED_PROXIES: "127.0.0.1",
      SIGNUPS_PER_ADDRESS_PER_HOUR: 3,
      OAUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR: 3,
    },
  };
  const app = createApp(deps).listen({ hostname: "127.0.0.1", port });
  stop = async () => {
    await app.stop(true);
  };
  accounts = createApp(base);
  user = await webUser(accounts, base);
});

afterAll(async () => {
  await stop?.();
});

function post(path: string, from: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from },
    body: JSON.stringify(body),
  });
}

const signIn = (email: string, password: string, from: string) => post("/api/auth/signin", from, { email, password });

describe("sign-in throttles behind a proxy", () => {
  test("failures from one client address do not lock the owner out from another", async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, `wrong ${i}`, "203.0.113.5")).status).toBe(401);
    const throttled = await signIn(user.email, TEST_PASSWORD, "203.0.113.5");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    // Behind the same proxy, the owner's own address is another client.
    expect((await signIn(user.email, TEST_PASSWORD, "198.51.100.7")).status).toBe(200);
  });

  test("guesses spread over many addresses are held to one try per turn for that email, never a long lockout", async () => {
    const target = await webUser(accounts, deps);
    for (let i = 0; i < SIGNIN_ACCOUNT_MAX_FAILURES; i++) {
      expect((await signIn(target.email, `guess ${i}`, `192.0.2.${i + 1}`)).status).toBe(401);
    }
    // Past the email's limit: one try takes the turn, the next waits for the turn to end.
    expect((await signIn(target.email, "one more guess", "192.0.2.200")).status).toBe(401);
    const waiting = await signIn(target.email, "and another", "192.0.2.201");
    expect(waiting.status).toBe(429);
    const retryAfter = Number(waiting.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGNIN_ACCOUNT_TURN_SECONDS);
    // When the turn ends (shortened here), the owner signs in.
    const digest = createHash("sha256").update(target.email.toLowerCase()).digest("hex");
    const turn = `${deps.env.REDIS_PREFIX}:signin-turn:${digest}`;
    await deps.redis.pexpire(turn, 1);
    await waitFor("the sign-in turn to end", async () => (await deps.redis.exists(turn)) === 0);
    expect((await signIn(target.email, TEST_PASSWORD, "198.51.100.8")).status).toBe(200);
  });

  test("a forged X-Forwarded-For from a peer that is not a trusted proxy changes nothing", async () => {
    const direct = createApp({ ...deps, env: { ...deps.env, TRUSTED_PROXIES: "" } });
    const port = freePort();
    const server = direct.listen({ hostname: "127.0.0.1", port });
    try {
      const target = await webUser(accounts, deps);
      const at = (from: string, password: string) =>
        fetch(`http://127.0.0.1:${port}/api/auth/signin`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": from },
          body: JSON.stringify({ email: target.email, password }),
        });
      for (let i = 0; i < 5; i++) expect((await at(`198.18.0.${i}`, `wrong ${i}`)).status).toBe(401);
      expect((await at("198.18.0.99", TEST_PASSWORD)).status).toBe(429);
    } finally {
      await server.stop(true);
    }
  });
});

describe("sign-up and registration are limited per client address", () => {
  test("sign-ups: the limit per address per hour, then 429; another address is not affected", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await post("/api/auth/signup", "203.0.113.20", {
        email: uniqueEmail("burst"),
        password: TEST_PASSWORD,
      });
      expect(response.status).toBe(201);
    }
    const refused = await post("/api/auth/signup", "203.0.113.20", {
      email: uniqueEmail("burst"),
      password: TEST_PASSWORD,
    });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    const other = await post("/api/auth/signup", "203.0.113.21", {
      email: uniqueEmail("other"),
      password: TEST_PASSWORD,
    });
    expect(other.status).toBe(201);
  });

  test("client registrations: the limit per address per hour, then 429", async () => {
    const register = (from: string, metadata: Record<string, unknown> = {}) =>
      post("/oauth/register", from, {
        client_name: "Burst",
        redirect_uris: ["http://127.0.0.1:9/cb"],
        token_endpoint_auth_method: "none",
        ...metadata,
      });
    for (let i = 0; i < 3; i++) expect((await register("203.0.113.30")).status).toBe(201);
    const refused = await register("203.0.113.30");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await register("203.0.113.31")).status).toBe(201);
  });

  test("registration metadata is bounded, and redirect URIs are https or loopback http", async () => {
    const register = (metadata: Record<string, unknown>) =>
      post("/oauth/register", "203.0.113.40", { token_endpoint_auth_method: "none", ...metadata });
    const longName = await register({ client_name: "n".repeat(55_000), redirect_uris: ["https://a.example/cb"] });
    expect(longName.status).toBe(400);
    expect(((await longName.json()) as { error: string }).error).toBe("invalid_client_metadata");
    const plainHttp = await post("/oauth/register", "203.0.113.41", {
      redirect_uris: ["http://evil.example/cb"],
      token_endpoint_auth_method: "none",
    });
    expect(plainHttp.status).toBe(400);
    expect(((await plainHttp.json()) as { error: string }).error).toBe("invalid_redirect_uri");
    const many = await post("/oauth/register", "203.0.113.42", {
      redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`),
      token_endpoint_auth_method: "none",
    });
    expect(many.status).toBe(400);
  });
});

describe("the sweep of clients nobody granted", () => {
  test("a client never granted anything is deleted a day after it registered; a granted one stays", async () => {
    // Registered from an address of their own: the run's other files register from loopback too.
    const register = async (client_name: string) => {
      const response = await post("/oauth/register", "203.0.113.50", {
        client_name,
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: "none",
      });
      expect(response.status).toBe(201);
      return (await response.json()) as RegisteredClient;
    };
    const unused = await register("Unused");
    const used = await register("Used");
    const owner = await webUser(accounts, deps, { plan: "go" });
    await connect(url, owner, { client: used });
    // Both registered two days ago.
    await deps.sql`
      update oauth_records
      set payload = jsonb_set(payload, '{client_id_issued_at}', to_jsonb(extract(epoch from now())::bigint - 172800))
      where kind = 'Client' and id in ${deps.sql([unused.client_id, used.client_id])}`;
    const fresh = await register("Fresh");
    const { clients } = await sweepOAuthRecords(deps);
    expect(clients).toBeGreaterThanOrEqual(1);
    const left = await deps.sql<{ id: string }[]>`
      select id from oauth_records
      where kind = 'Client' and id in ${deps.sql([unused.client_id, used.client_id, fresh.client_id])}`;
    expect(left.map((row) => row.id).sort()).toEqual([used.client_id, fresh.client_id].sort());
    const tokens = await deps.sql`
      select 1 from oauth_records where kind = 'RegistrationAccessToken' and payload->>'clientId' = ${unused.client_id}`;
    expect(tokens).toHaveLength(0);
  });
});
