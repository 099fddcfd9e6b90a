import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { freePort } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import type { CreatedShareLink } from "../../../shared/sharing/schemas";
import { healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestAccount } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/**
 * The public share-link paths' limit per client address, over a real socket behind a trusted proxy
 * (TRUSTED_PROXIES names loopback, so X-Forwarded-For names the client): every request counts,
 * a working link or not; past the limit the page is a 429 page and /fhir the JSON 429, both with
 * Retry-After; another address is not held up; the audit keeps the address the limit counted.
 */
const LIMIT = 3;
let deps: Deps;
let url: string;
let stop: () => Promise<void>;
let owner: TestAccount;
let link: CreatedShareLink;

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
      SHARE_LINK_REQUESTS_PER_ADDRESS_PER_MINUTE: LIMIT,
    },
  };
  const app = createApp(deps).listen({ hostname: "127.0.0.1", port });
  stop = async () => {
    await app.stop(true);
  };
  const setup = createApp(base);
  owner = await healthAccount(base, setup);
  const created = await call(setup, "/api/v1/health/share-links", { method: "POST", key: owner.apiKey, body: {} });
  link = await json<CreatedShareLink>(created);
});

afterAll(async () => {
  await stop?.();
});

/** A client address of the documentation range, new for each use (the window is per address; the run's Redis prefix is its own). */
let clients = 0;
const address = () => `198.51.100.${++clients}`;
const from = (client: string, path: string) => fetch(`${url}${path}`, { headers: { "x-forwarded-for": client } });

describe("requests to /share/… per client address", () => {
  test("past the limit: the 429 page, then the JSON 429, with Retry-After; others go on", async () => {
    const client = address();
    const path = new URL(link.url).pathname;
    expect((await from(client, path)).status).toBe(200);
    expect((await from(client, `/share/${"B".repeat(43)}`)).status).toBe(404);
    expect((await from(client, `${path}/fhir`)).status).toBe(200);
    const page = await from(client, path);
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await page.text()).toContain("Too many requests");
    const fhir = await from(client, `${path}/fhir`);
    expect(fhir.status).toBe(429);
    expect((await errorOf(fhir)).code).toBe("RATE_LIMITED");
    expect((await from(address(), path)).status).toBe(200);
  });

  test("the audit keeps the client address the limit counted", async () => {
    const client = address();
    expect((await from(client, new URL(link.url).pathname)).status).toBe(200);
    const rows = await deps.sql<{ clientAddress: string }[]>`
      select client_address as "clientAddress" from share_link_opens where link_id = ${link.id}`;
    expect(rows.map((row) => row.clientAddress)).toContain(client);
  });
});
