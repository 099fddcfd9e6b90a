import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { ownIndexes } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;
let key: string;

const PLANS_FOR_TEST: PlanTable = { ...PLANS, go: { ...PLANS.go, requestsPerHour: 100_000 } };

interface Lookup {
  query: string;
  info: {
    id: string;
    label: string;
    definition: string | null;
    synonyms: { text: string; scope: string | null }[];
    xrefs: { id: string; prefix: string; url: string | null }[];
    parents: { id: string; label: string | null }[];
    links: { monarch: string; purl: string };
    source: { name: string; license: string };
    match: { by: string; score: number };
  };
  papers: { query: { names: string[]; fields: string[] }; data: { id: string; title: string; links: unknown }[] };
}

beforeAll(async () => {
  // Indexes of their own (papers and conditions), so other test files cannot change what this one expects.
  deps = await ownIndexes(await testDeps({ plans: PLANS_FOR_TEST }), "cond");
  app = createApp(deps);
  key = (await createTestAccount(deps, "go")).apiKey;
}, 60_000);

function get(path: string, apiKey = key) {
  return call(app, path, { key: apiKey });
}

async function lookup(q: string, extra = ""): Promise<Lookup> {
  const response = await get(`/api/v1/health/condition?q=${encodeURIComponent(q)}${extra}`);
  expect(response.status).toBe(200);
  return json<Lookup>(response);
}

async function notFound(q: string) {
  const response = await get(`/api/v1/health/condition?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(404);
  expect((await errorOf(response)).code).toBe("NOT_FOUND");
}

describe("GET /api/v1/health/condition", () => {
  test("an exact label: MONDO id, label, cross-references with resolvers, parents, source links", async () => {
    const body = await lookup("asthma");
    expect(body.query).toBe("asthma");
    expect(body.info).toMatchObject({
      id: "MONDO:0004979",
      label: "asthma",
      definition: null,
      parents: [{ id: "MONDO:0001358", label: "bronchial disorder" }],
      links: {
        monarch: "https://monarchinitiative.org/MONDO:0004979",
        purl: "http://purl.obolibrary.org/obo/MONDO_0004979",
      },
      source: { name: "Mondo Disease Ontology", license: "CC BY 4.0" },
      match: { by: "label", score: 1 },
    });
    expect(body.info.xrefs).toContainEqual({
      id: "DOID:2841",
      prefix: "DOID",
      url: "http://purl.obolibrary.org/obo/DOID_2841",
    });
    expect(body.info.xrefs).toContainEqual({
      id: "MESH:D001249",
      prefix: "MESH",
      url: "https://meshb.nlm.nih.gov/record/ui?ui=D001249",
    });
    expect(body.info.xrefs.every((xref) => xref.url === null || xref.url.startsWith("http"))).toBe(true);
  });

  test("case, diacritics, punctuation and surrounding spaces are folded for exact matches", async () => {
    expect((await lookup("  ASTHMA ")).info).toMatchObject({ id: "MONDO:0004979", match: { by: "label" } });
    expect((await lookup("covid 19")).info).toMatchObject({ label: "COVID-19", match: { by: "label" } });
    expect((await lookup("Covid–19")).info).toMatchObject({ label: "COVID-19", match: { by: "label" } });
  });

  test("an exact synonym resolves to its term", async () => {
    const body = await lookup("migraine");
    expect(body.info).toMatchObject({ label: "migraine disorder", match: { by: "synonym", score: 1 } });
    expect(body.info.synonyms).toContainEqual({ text: "migraine", scope: null });
  });

  test("typos within the rule resolve, to the general term", async () => {
    const typos: [string, string][] = [
      ["asthmaa", "asthma"],
      ["ashtma", "asthma"],
      ["diabetis", "diabetes mellitus"],
      ["influensa", "influenza"],
      ["pnemonia", "pneumonia"],
      ["migrane", "migraine disorder"],
      ["cystic fibrosiss", "cystic fibrosis"],
    ];
    for (const [q, label] of typos) {
      const body = await lookup(q);
      expect({ q, label: body.info.label, by: body.info.match.by }).toEqual({ q, label, by: "ranked" });
    }
    expect((await lookup("diabetes")).info.label).toBe("diabetes mellitus");
  });

  test("near misses are 404 with the error body: an unmatched word, a prefix only, two typos, nonsense", async () => {
    await notFound("asthma attack");
    await notFound("heart attack");
    await notFound("epilep");
    await notFound("asthmaaa diabetis");
    await notFound("xyzzy");
  });

  test("q is 2 to 120 characters", async () => {
    for (const q of ["a", " a ", "  "]) {
      const response = await get(`/api/v1/health/condition?q=${encodeURIComponent(q)}`);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
    expect((await get("/api/v1/health/condition?q=ab")).status).not.toBe(400);
    expect((await get(`/api/v1/health/condition?q=${"a".repeat(120)}`)).status).toBe(404);
    const tooLong = await get(`/api/v1/health/condition?q=${"a".repeat(121)}`);
    expect(tooLong.status).toBe(400);
    expect((await errorOf(tooLong)).details).toEqual([expect.objectContaining({ in: "query", path: "/q" })]);
  });

  test("name is an alias of q: either, or both with the same value; missing, different or unknown → 400", async () => {
    const byName = await get("/api/v1/health/condition?name=asthma");
    expect((await json<Lookup>(byName)).info.id).toBe("MONDO:0004979");
    expect((await get("/api/v1/health/condition?q=asthma&name=asthma")).status).toBe(200);
    for (const query of ["", "q=asthma&name=influenza", "name=a", "q=asthma&color=red", "q=asthma&papers=21"]) {
      const response = await get(`/api/v1/health/condition?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
  });

  test("related papers from our index: a phrase search on the label and exact synonyms, paper records", async () => {
    const covid = await lookup("COVID-19");
    expect(covid.papers.query).toEqual({ names: ["COVID-19"], fields: ["title", "abstract"] });
    expect(covid.papers.data.map((paper) => paper.id)).toContain("2004.08990");
    expect(covid.papers.data[0]).toMatchObject({ links: { abs: expect.stringContaining("arxiv.org/abs/") } });
    expect((await lookup("cancer")).papers.data.map((paper) => paper.id)).toContain("0704.0429");
    expect((await lookup("migraine")).papers.query.names).toEqual([
      "migraine disorder",
      "migraine",
      "migraine headache",
      "migraine variant",
      "migraine with or without aura",
    ]);
    expect((await lookup("COVID-19", "&papers=0")).papers.data).toEqual([]);
    expect((await lookup("asthma", "&papers=20")).papers.data).toEqual([]);
  });
});

describe("GET /api/v1/health/condition/{mondoId}", () => {
  test("by CURIE or underscore form, with parents and children", async () => {
    for (const id of ["MONDO:0004979", "MONDO_0004979", "mondo:0004979"]) {
      const response = await get(`/api/v1/health/condition/${id}`);
      expect(response.status).toBe(200);
      const body = await json<Lookup["info"] & { children: { id: string; label: string }[] }>(response);
      expect(body.id).toBe("MONDO:0004979");
      expect(body.parents).toEqual([{ id: "MONDO:0001358", label: "bronchial disorder" }]);
      expect(body.children).toContainEqual({ id: "MONDO:0005405", label: "childhood onset asthma" });
      expect(body.children).toHaveLength(9);
    }
  });

  test("unknown or malformed ids are 404", async () => {
    for (const id of ["MONDO:0000000", "MONDO:123", "asthma", "DOID:2841"]) {
      const response = await get(`/api/v1/health/condition/${encodeURIComponent(id)}`);
      expect({ id, status: response.status }).toEqual({ id, status: 404 });
      expect((await errorOf(response)).code).toBe("NOT_FOUND");
    }
  });
});

describe("GET /api/v1/health/conditions/search", () => {
  interface Search {
    query: string;
    data: { id: string; label: string; match: string; score: number; acceptable: boolean }[];
  }

  test("exact matches first, then ranked candidates by score", async () => {
    const migraine = await json<Search>(await get("/api/v1/health/conditions/search?q=migraine"));
    // Other labels contain the word; the term whose synonym it is comes first.
    expect(migraine.data.length).toBeGreaterThan(1);
    expect(migraine.data[0]).toEqual({
      id: "MONDO:0005277",
      label: "migraine disorder",
      match: "synonym",
      score: 1,
      acceptable: true,
    });
    const body = await json<Search>(await get("/api/v1/health/conditions/search?q=asthma&limit=5"));
    expect(body.query).toBe("asthma");
    expect(body.data).toHaveLength(5);
    expect(body.data[0]).toMatchObject({ id: "MONDO:0004979", match: "label", score: 1 });
    const ranked = body.data.slice(1);
    expect(ranked.every((hit) => hit.match === "ranked" && hit.label.toLowerCase().includes("asthma"))).toBe(true);
    const scores = ranked.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  test("prefix candidates are listed but not acceptable; no match is an empty list", async () => {
    const body = await json<Search>(await get("/api/v1/health/conditions/search?q=epilep"));
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((hit) => !hit.acceptable && hit.label.toLowerCase().includes("epilep"))).toBe(true);
    const none = await get("/api/v1/health/conditions/search?q=xyzzy");
    expect(none.status).toBe(200);
    expect((await json<Search>(none)).data).toEqual([]);
    expect((await get("/api/v1/health/conditions/search?q=asthma&limit=51")).status).toBe(400);
  });
});

describe("access", () => {
  test("health plans only: free → 403 PLAN_REQUIRED, no key → 401, on every condition route", async () => {
    const free = await createTestAccount(deps, "free");
    for (const path of [
      "/api/v1/health/condition?q=asthma",
      "/api/v1/health/condition/MONDO:0004979",
      "/api/v1/health/conditions/search?q=asthma",
    ]) {
      const forbidden = await get(path, free.apiKey);
      expect(forbidden.status).toBe(403);
      expect((await errorOf(forbidden)).code).toBe("PLAN_REQUIRED");
      expect((await call(app, path)).status).toBe(401);
    }
  });

  test("the routes and their response schemas are in the OpenAPI document", async () => {
    const document = await json<{ paths: Record<string, { get?: { responses?: Record<string, unknown> } }> }>(
      await call(app, "/openapi.json"),
    );
    for (const path of [
      "/api/v1/health/condition",
      "/api/v1/health/condition/{mondoId}",
      "/api/v1/health/conditions/search",
    ]) {
      expect(document.paths[path]?.get?.responses?.["200"]).toBeDefined();
    }
  });
});
