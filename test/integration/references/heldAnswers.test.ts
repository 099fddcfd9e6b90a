import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { freePort, stopProcess, tcpOpen, waitFor } from "../../../scripts/lib/processes";
import { contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { upsertCachedReference } from "../../../shared/references/cacheRepository";
import { lookupMedication } from "../../../shared/references/medication";
import type { MedicationReference, RxnormPart } from "../../../shared/references/schemas";
import { call, type TestApp } from "../../helpers/http";
import { processEnvFor } from "../../helpers/infra";
import { type ReferenceWorld, referenceWorld } from "../../helpers/referenceWorld";
import { type UpstreamFixtures, upstreamEnv } from "../../helpers/upstream";

/**
 * Medication answers held in memory (shared/references/heldAnswers.ts): from the third lookup of a
 * query on, an API process answers from memory, yet never an answer whose cache rows changed or
 * expired, whoever changed them (a lookup job, plain SQL, another process).
 */
let world: ReferenceWorld;
let deps: Deps;
let app: TestApp;
let key: string;
let upstream: UpstreamFixtures;

beforeAll(async () => {
  // Generous timeouts: no test here stalls an upstream, and a busy machine must not fail a lookup.
  world = await referenceWorld({ UPSTREAM_TIMEOUT_MS: 10_000, REFERENCE_WAIT_MS: 20_000 });
  ({ deps, app, key, upstream } = world);
});

afterAll(() => world?.close());

beforeEach(() => world.reset());

const path = (name: string) => `/api/v1/health/medication?name=${encodeURIComponent(name)}`;

async function body(target: TestApp | string, name: string): Promise<string> {
  const response =
    typeof target === "string"
      ? await fetch(`${target}${path(name)}`, { headers: { authorization: `Bearer ${key}` } })
      : await call(target, path(name), { key });
  if (response.status !== 200) throw new Error(`${name} → ${response.status} ${await response.text()}`);
  return response.text();
}

const reference = async (target: TestApp | string, name: string) =>
  JSON.parse(await body(target, name)) as MedicationReference;

/** Live, then read fresh from the table (and held), then held: every path an answer takes. */
async function warm(target: TestApp | string, name = "aspirin"): Promise<void> {
  for (let i = 0; i < 3; i++) await body(target, name);
}

describe("held medication answers", () => {
  test("a held answer is byte for byte the answer read from the table, with the caller's spelling echoed", async () => {
    await body(app, "aspirin");
    const fromTable = await body(app, "aspirin");
    expect(await body(app, "aspirin")).toBe(fromTable);
    const echoed = await reference(app, "  ASPIRIN ");
    expect(echoed.query).toEqual({ input: "  ASPIRIN ", by: "name", value: "aspirin" });
    expect(echoed.cache).toMatchObject({ rxnorm: { state: "fresh" }, fda: { state: "fresh" } });
    expect(await body(app, "aspirin")).toBe(fromTable);
    expect(upstream.totalHits("openfda")).toBe(1);
  });

  test("a row changed in place, fetched_at untouched: the next lookup answers the change", async () => {
    await warm(app);
    await deps.sql`
      update reference_cache set value = jsonb_set(value, '{name}', '"aspirin (edited)"')
      where source = 'rxnav' and key = 'name-aspirin'`;
    expect((await reference(app, "aspirin")).rxnorm.name).toBe("aspirin (edited)");
  });

  test("a row deleted: the next lookup asks the upstream again", async () => {
    await warm(app);
    const labels = upstream.hits.get("openfda /drug/label.json");
    await deps.sql`delete from reference_cache where source = 'openfda'`;
    const again = await reference(app, "aspirin");
    expect(again.cache).toMatchObject({ rxnorm: { state: "fresh" }, fda: { state: "live" } });
    expect(upstream.hits.get("openfda /drug/label.json")).toBe((labels ?? 0) + 1);
  });

  test("a held answer is not served past the reference freshness rule (REFERENCE_CACHE_TTL_HOURS)", async () => {
    await warm(app);
    // The same database client (so the same held answers), judged by a rule under which nothing is fresh.
    const expiring = createApp({ ...deps, env: { ...deps.env, REFERENCE_CACHE_TTL_HOURS: 0 } });
    upstream.mode = "fail";
    const ref = await reference(expiring, "aspirin");
    expect(ref.cache.rxnorm.state).not.toBe("fresh");
    expect(ref.cache.fda.state).not.toBe("fresh");
  });

  test("callers of the verb get copies: changing one answer does not change the next", async () => {
    const ctx = contextFor(deps, "req_heldAnswers");
    await warm(app);
    const first = await lookupMedication(ctx, { name: "aspirin" });
    first.rxnorm.name = "changed by a caller";
    first.fda.sections = {};
    const second = await lookupMedication(ctx, { name: "aspirin" });
    expect(second.rxnorm.name).toBe("aspirin");
    expect(Object.keys(second.fda.sections).length).toBeGreaterThan(0);
  });
});

describe("held medication answers across API processes", () => {
  let apis: { child: ReturnType<typeof Bun.spawn>; url: string }[] = [];

  beforeAll(async () => {
    const env = { ...processEnvFor(deps.env), ...upstreamEnv(upstream), LOG_LEVEL: "silent" };
    apis = await Promise.all(
      [0, 1].map(async () => {
        const port = freePort();
        const child = Bun.spawn([process.execPath, "api/server.ts"], {
          env: { ...env, PORT: String(port) },
          stdout: "ignore",
          stderr: "ignore",
        });
        await waitFor("API", () => tcpOpen("127.0.0.1", port));
        return { child, url: `http://127.0.0.1:${port}` };
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(apis.map((api) => stopProcess(api.child)));
  });

  test("an answer rewritten by a lookup job is served by both processes at once", async () => {
    const [a, b] = apis.map((api) => api.url) as [string, string];
    await warm(a);
    await warm(b);
    const [row] = await deps.sql<{ value: RxnormPart }[]>`
      select value from reference_cache where source = 'rxnav' and key = 'name-aspirin'`;
    // What the rxnav lookup job writes when it refreshes an answer.
    await upsertCachedReference(deps.sql, {
      source: "rxnav",
      key: "name-aspirin",
      value: { ...(row as { value: RxnormPart }).value, name: "aspirin (refreshed)" },
    });
    expect((await reference(a, "aspirin")).rxnorm.name).toBe("aspirin (refreshed)");
    expect((await reference(b, "aspirin")).rxnorm.name).toBe("aspirin (refreshed)");
  });

  test("rows deleted with plain SQL: the next lookup in either process asks the upstream", async () => {
    const [a, b] = apis.map((api) => api.url) as [string, string];
    await warm(a);
    await warm(b);
    await deps.sql`delete from reference_cache`;
    upstream.hits.clear();
    expect((await reference(b, "aspirin")).cache.rxnorm.state).toBe("live");
    expect(upstream.hits.get("rxnav /REST/rxcui.json")).toBe(1);
    expect((await reference(a, "aspirin")).cache.rxnorm.state).toBe("fresh");
    expect(upstream.hits.get("rxnav /REST/rxcui.json")).toBe(1);
  });
});
