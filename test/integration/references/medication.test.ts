import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { seedDemoReferences } from "../../../scripts/lib/seedReferences";
import type { Deps } from "../../../shared/context/deps";
import type { MedicationReference } from "../../../shared/references/schemas";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { type ReferenceWorld, referenceWorld } from "../../helpers/referenceWorld";
import type { UpstreamFixtures } from "../../helpers/upstream";

let world: ReferenceWorld;
let deps: Deps;
let app: TestApp;
let key: string;
let upstream: UpstreamFixtures;

beforeAll(async () => {
  world = await referenceWorld({ UPSTREAM_TIMEOUT_MS: 300, REFERENCE_WAIT_MS: 10_000 });
  ({ deps, app, key, upstream } = world);
});

afterAll(() => world?.close());

beforeEach(() => world.reset());

const lookup = (name: string) => call(app, `/api/v1/health/medication?name=${encodeURIComponent(name)}`, { key });
async function reference(name: string): Promise<MedicationReference> {
  const response = await lookup(name);
  if (response.status !== 200) throw new Error(`${name} → ${response.status} ${await response.text()}`);
  return json<MedicationReference>(response);
}

describe("medication reference: RxNav + openFDA through the queue", () => {
  test("a name found in both: concept, ingredients, brands, products, codes, NDCs and the newest label", async () => {
    const ref = await reference("Aspirin");
    expect(ref.query).toEqual({ input: "Aspirin", by: "name", value: "aspirin" });
    expect(ref.rxnorm).toMatchObject({ found: true, matchedBy: "name", rxcui: "1191", name: "aspirin", tty: "IN" });
    expect(ref.rxnorm.ingredients).toEqual([{ rxcui: "1191", name: "aspirin", tty: "IN" }]);
    expect(ref.rxnorm.brands.map((b) => b.name)).toEqual(["Bayer Aspirin"]);
    expect(ref.rxnorm.products.map((p) => p.rxcui)).toEqual(["308416"]);
    expect(ref.rxnorm.properties).toContainEqual({ category: "CODES", name: "ATC", value: "B01AC06" });
    expect(ref.rxnorm).toMatchObject({ ndcs: ["00904629161", "63868039701"], ndcCount: 2 });
    expect(ref.fda).toMatchObject({
      found: true,
      matchedBy: "rxcui",
      setId: "0025eb89-590c-4451-8a06-b129686cf75a",
      effectiveTime: "2012-11-14",
      harmonized: true,
      genericNames: ["ASPIRIN"],
      routes: ["ORAL"],
    });
    // Sections come in a fixed order; an OTC label has Drug Facts sections instead of prescribing ones.
    expect(Object.keys(ref.fda.sections)).toEqual([
      "indications_and_usage",
      "dosage_and_administration",
      "warnings",
      "active_ingredient",
      "purpose",
      "do_not_use",
      "stop_use",
      "ask_doctor",
    ]);
    expect(ref.fda.source.url).toBe(
      "https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid=0025eb89-590c-4451-8a06-b129686cf75a",
    );
    expect(ref.disclaimer).toContain("not a drug-interaction assessment");
    expect(ref.cache.rxnorm.state).toBe("live");
    expect(ref.cache.fda.state).toBe("live");
  });

  test("a second lookup is served from the cache without asking the upstreams", async () => {
    await reference("aspirin");
    const before = upstream.totalHits("");
    const again = await reference("  ASPIRIN ");
    expect(again.cache).toMatchObject({ rxnorm: { state: "fresh" }, fda: { state: "fresh" } });
    expect(again.rxnorm.rxcui).toBe("1191");
    expect(upstream.totalHits("")).toBe(before);
  });

  test("a misspelling resolves through approximateTerm and says so", async () => {
    const ref = await reference("ambienn");
    expect(ref.rxnorm).toMatchObject({
      found: true,
      matchedBy: "approximate",
      approximateMatch: { inputTerm: "ambienn", score: 75 },
      rxcui: "131725",
      name: "Ambien",
      tty: "BN",
    });
    expect(ref.rxnorm.ingredients.map((c) => c.name)).toEqual(["zolpidem"]);
    expect(ref.fda).toMatchObject({ found: true, matchedBy: "rxcui", brandNames: ["AMBIEN"] });
    expect(ref.fda.sections.boxed_warning).toContain("federally controlled substance");
    expect(ref.fda.sections.warnings_and_cautions).toEqual(expect.any(String));
  });

  test("a label without the harmonized openfda block is still found, by its product text", async () => {
    const ref = await reference("adalimumab");
    expect(ref.rxnorm).toMatchObject({ found: true, rxcui: "327361" });
    expect(ref.fda).toMatchObject({
      found: true,
      matchedBy: "label-text",
      harmonized: false,
      setId: "608d4f0d-b19f-46d3-749a-7159aa5f933d",
      brandNames: [],
      rxcuis: [],
    });
    expect(ref.fda.sections.boxed_warning).toContain("SERIOUS INFECTIONS");
    // rxcui search, then name search, then the text search: three label requests.
    expect(upstream.hits.get("openfda /drug/label.json")).toBe(3);
  });

  test("found in RxNorm but without an FDA label: fda.found is false (recorded RxNav allrelated)", async () => {
    const ref = await reference("Zyrtec Itchy Eye");
    expect(ref.rxnorm).toMatchObject({ found: true, rxcui: "866350", tty: "BN" });
    expect(ref.rxnorm.ingredients.map((c) => c.name)).toEqual(["Ketotifen", "Ketotifen Fumarate"]);
    expect(ref.rxnorm.properties[0]).toEqual({ category: "CODES", name: "NUI", value: "N0000007070" });
    expect(ref.fda).toMatchObject({ found: false, matchedBy: null, setId: null, sections: {} });
  });

  test("an unknown name: found false in both parts, 200", async () => {
    const ref = await reference("unknownium");
    expect(ref.rxnorm.found).toBe(false);
    expect(ref.fda.found).toBe(false);
  });

  test("an RxCUI or an NDC works as well as a name", async () => {
    const byRxcui = await reference("1191");
    expect(byRxcui.query.by).toBe("rxcui");
    expect(byRxcui.rxnorm).toMatchObject({ found: true, matchedBy: "rxcui", name: "aspirin" });
    const byNdc = await reference("0781-1506-10");
    expect(byNdc.query.by).toBe("ndc");
    expect(byNdc.rxnorm).toMatchObject({ found: true, matchedBy: "ndc", rxcui: "197381", tty: "SCD" });
  });

  test("name length: 1 and 120 characters are accepted; empty, blank, 121 and missing are 400", async () => {
    expect((await lookup("x")).status).toBe(200);
    expect((await lookup("x".repeat(120))).status).toBe(200);
    for (const path of [
      "/api/v1/health/medication?name=",
      "/api/v1/health/medication?name=%20%20",
      `/api/v1/health/medication?name=${"x".repeat(121)}`,
      "/api/v1/health/medication",
      "/api/v1/health/medication?name=aspirin&dose=81",
    ]) {
      const response = await call(app, path, { key });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
  });

  test("50 concurrent identical cold lookups make exactly one call per upstream endpoint", async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => lookup("aspirin")));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const bodies = await Promise.all(responses.map((r) => json<MedicationReference>(r)));
    expect(new Set(bodies.map((b) => b.fda.setId))).toEqual(new Set(["0025eb89-590c-4451-8a06-b129686cf75a"]));
    expect(Object.fromEntries(upstream.hits)).toEqual({
      "rxnav /REST/rxcui.json": 1,
      "rxnav /REST/rxcui/{id}/properties.json": 1,
      "rxnav /REST/rxcui/{id}/allrelated.json": 1,
      "rxnav /REST/rxcui/{id}/allProperties.json": 1,
      "rxnav /REST/rxcui/{id}/ndcs.json": 1,
      "openfda /drug/label.json": 1,
    });
  });
});

describe("medication reference when an upstream fails", () => {
  test("upstream 5xx and nothing cached: 502 naming the upstream, after retries", async () => {
    upstream.mode = "fail";
    const response = await lookup("aspirin");
    expect(response.status).toBe(502);
    const error = await errorOf(response);
    expect(error.code).toBe("UPSTREAM_FAILED");
    expect(error.message).toContain("RxNav");
    // The job was attempted three times (BullMQ retries with backoff).
    expect(upstream.hits.get("rxnav /REST/rxcui.json")).toBe(3);
  });

  test("upstream 5xx with an expired cached answer: 200 with the stale answer, flagged", async () => {
    await reference("aspirin");
    await deps.sql`update reference_cache set fetched_at = now() - interval '400 days'`;
    upstream.mode = "fail";
    const ref = await reference("aspirin");
    expect(ref.cache).toMatchObject({ rxnorm: { state: "stale" }, fda: { state: "stale" } });
    expect(ref.rxnorm.rxcui).toBe("1191");
    expect(ref.fda.setId).toBe("0025eb89-590c-4451-8a06-b129686cf75a");
  });

  test("an upstream that stalls times out: 502, and the request does not hang", async () => {
    upstream.mode = "stall";
    const response = await lookup("ambienn");
    expect(response.status).toBe(502);
    expect((await errorOf(response)).message).toContain("RxNav");
  });

  test("openFDA down while RxNav answers: 502 naming openFDA", async () => {
    await reference("aspirin");
    await deps.sql`delete from reference_cache where source = 'openfda'`;
    upstream.mode = "fail";
    // RxNav's answer is fresh in the cache; only the label lookup reaches the failing upstream.
    const response = await lookup("aspirin");
    expect(response.status).toBe(502);
    expect((await errorOf(response)).message).toContain("openFDA");
  });

  test("offline with the demo seed: the demo drugs answer from recorded labels, other names 502", async () => {
    expect(await seedDemoReferences(deps.env)).toBe(8);
    expect(await seedDemoReferences(deps.env)).toBe(0);
    upstream.mode = "fail";
    const aspirin = await reference("aspirin");
    expect(aspirin.cache).toMatchObject({ rxnorm: { state: "fresh" }, fda: { state: "fresh" } });
    expect(aspirin.rxnorm).toMatchObject({ found: true, rxcui: "1191" });
    expect(aspirin.rxnorm.source.note).toContain("not a recorded RxNav answer");
    expect(aspirin.fda).toMatchObject({ found: true, setId: "0025eb89-590c-4451-8a06-b129686cf75a" });
    expect((await reference("zolpidem")).fda.brandNames).toEqual(["AMBIEN"]);
    expect((await reference("adalimumab")).fda.sections.boxed_warning).toContain("SERIOUS INFECTIONS");
    expect(upstream.totalHits("")).toBe(0);
    expect((await lookup("ibuprofen")).status).toBe(502);
  });

  test("free plans get 403 PLAN_REQUIRED", async () => {
    const free = await createTestAccount(deps, "free");
    const response = await call(app, "/api/v1/health/medication?name=aspirin", { key: free.apiKey });
    expect(response.status).toBe(403);
  });
});
