import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { indexPapers } from "../../../shared/indexing/papers";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import type { Paper } from "../../../shared/records/paper";
import { call, createTestAccount, errorOf, type TestAccount, type TestApp } from "../../helpers/http";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;
let account: TestAccount;
let papers: Paper[];

// Small pages so paging is exercised on every query; `plus` keeps its real cap of 100.
const PLANS_FOR_TEST: PlanTable = { ...PLANS, plus: { ...PLANS.plus, requestsPerHour: 100_000 } };

beforeAll(async () => {
  const base = await testDeps({ plans: PLANS_FOR_TEST });
  // An index of its own, so other test files writing papers cannot change what this one expects.
  deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: `${base.env.MEILI_INDEX_PREFIX}search_` } };
  await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX);
  papers = await demoPapers();
  for (let i = 0; i < papers.length; i += 1000) {
    await indexPapers(deps, papers.slice(i, i + 1000));
  }
  app = createApp(deps);
  account = await createTestAccount(deps, "plus");
}, 60_000);

/** The documented title semantics in plain TypeScript: every query word is a whole title word, folded. */
function words(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * A title matches when every query word is one of its words, or is two adjacent title words written
 * together (`Schr\"odinger` has the words `schr` `odinger`; "schrodinger" matches it), or forms one
 * title word together with the next query word ("black hole" matches `blackhole`).
 */
function titleMatches(title: string, query: string[]): boolean {
  const tokens = words(title);
  const vocabulary = new Set(tokens);
  for (let i = 0; i + 1 < tokens.length; i++) vocabulary.add(`${tokens[i]}${tokens[i + 1]}`);
  for (let i = 0; i < query.length; i++) {
    const word = query[i] as string;
    if (vocabulary.has(word)) continue;
    const next = query[i + 1];
    if (next !== undefined && tokens.includes(`${word}${next}`)) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

function expected(q: string): Set<string> {
  const query = words(q);
  return new Set(papers.filter((paper) => titleMatches(paper.title, query)).map((p) => p.id));
}

async function allPages(q: string, limit: number) {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const response = await call(app, `/api/v1/papers/search?q=${encodeURIComponent(q)}&page=${page}&limit=${limit}`, {
      key: account.apiKey,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: Paper[];
      pagination: { page: number; hasMore: boolean; nextPage: number | null; limit: number };
    };
    expect(body.pagination.page).toBe(page);
    expect(body.pagination.limit).toBe(limit);
    ids.push(...body.data.map((paper) => paper.id));
    if (!body.pagination.hasMore) {
      expect(body.pagination.nextPage).toBeNull();
      return { ids, lastPageSize: body.data.length, pages: page + 1 };
    }
    expect(body.pagination.nextPage).toBe(page + 1);
    expect(body.data).toHaveLength(limit);
  }
}

const QUERIES = [
  "quantum",
  "Black Holes",
  "dark matter",
  "GALAXY clusters",
  "magnetic field",
  "neutron star",
  "spin",
  "the",
  "random matrices",
  "Schrodinger",
  "string theory",
  "supersymmetric",
  "no such words zzqx",
];

describe("GET /api/v1/papers/search (titles)", () => {
  test.each(QUERIES)("%p returns exactly the reference matches, each once, over exact pages", async (q) => {
    const reference = expected(q);
    const { ids, lastPageSize } = await allPages(q, 7);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(reference);
    if (reference.size > 0) expect(lastPageSize).toBeGreaterThan(0);
  });

  test("no matches → 200 with an empty page", async () => {
    const response = await call(app, "/api/v1/papers/search?q=zzqxnothing", { key: account.apiKey });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: [],
      pagination: { page: 0, limit: 20, hasMore: false, nextPage: null },
    });
  });

  test("limit is capped by the plan and the applied value is reported", async () => {
    const free = await createTestAccount(deps, "free");
    const response = await call(app, "/api/v1/papers/search?q=the&limit=100", { key: free.apiKey });
    const body = (await response.json()) as { data: unknown[]; pagination: { limit: number } };
    expect(body.pagination.limit).toBe(PLANS.free.maxPageSize);
    expect(body.data.length).toBeLessThanOrEqual(PLANS.free.maxPageSize);
  });

  test.each([
    ["q missing", ""],
    ["q blank", "q=%20%20"],
    ["page negative", "q=x&page=-1"],
    ["page not an integer", "q=x&page=1.5"],
    ["limit zero", "q=x&limit=0"],
    ["limit over 100", "q=x&limit=101"],
    ["limit not a number", "q=x&limit=ten"],
    ["unknown parameter", "q=x&sort=new"],
  ])("%s → 400 with details", async (_, query) => {
    const response = await call(app, `/api/v1/papers/search?${query}`, { key: account.apiKey });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.length).toBeGreaterThan(0);
  });

  test("search hits are complete paper records", async () => {
    const response = await call(app, "/api/v1/papers/search?q=quantum&limit=1", { key: account.apiKey });
    const [hit] = ((await response.json()) as { data: Paper[] }).data;
    const stored = papers.find((paper) => paper.id === hit?.id);
    expect(hit).toEqual(stored as Paper);
  });
});

describe("GET /api/v1/papers/{id}", () => {
  test("by id, with or without version, old and new style", async () => {
    const old = papers.find((paper) => paper.id.includes("/")) as Paper;
    const recent = papers.find((paper) => !paper.id.includes("/")) as Paper;
    for (const [path, paper] of [
      [old.id, old],
      [`${old.id}v1`, old],
      [recent.id, recent],
      [recent.extractedID, recent],
    ] as const) {
      const response = await call(app, `/api/v1/papers/${path}`, { key: account.apiKey });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(paper);
    }
  });

  test.each(["9999.99999", "not-an-id", "hep-th/99", "0704.0001v"])("%p → 404", async (id) => {
    const response = await call(app, `/api/v1/papers/${id}`, { key: account.apiKey });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe("NOT_FOUND");
  });

  test("papers need a key like every /api/v1 route", async () => {
    expect((await call(app, "/api/v1/papers/search?q=x")).status).toBe(401);
    expect((await call(app, "/api/v1/papers/0704.0001")).status).toBe(401);
  });
});

/** The documented fielded semantics, in plain TypeScript. */
function fieldTexts(paper: Paper, key: string): string[] {
  const byKey: Record<string, (string | null)[]> = {
    ti: [paper.title],
    abs: [paper.abstract],
    au: [paper.authors, ...paper.authorsParsed.map((a) => [a.first, a.last, a.suffix].filter(Boolean).join(" "))],
    jr: [paper.journalRef],
    co: [paper.comments],
    rn: [paper.reportNo],
  };
  byKey.all = [
    paper.title,
    paper.abstract,
    ...(byKey.au as string[]),
    paper.submitter,
    paper.journalRef,
    ...paper.categories,
    paper.comments,
    paper.doi,
    paper.reportNo,
  ];
  return (byKey[key] ?? []).filter((text): text is string => Boolean(text));
}

function textMatches(texts: string[], q: string): boolean {
  // Words may come from any of the fields; the title helper handles joined/split words per field.
  const query = words(q);
  return (
    query.every((word) => texts.some((text) => titleMatches(text, [word]))) ||
    texts.some((text) => titleMatches(text, query))
  );
}

function advancedExpected(filters: Record<string, string>): Paper[] {
  return papers.filter((paper) =>
    Object.entries(filters).every(([key, value]) => {
      if (key === "id") return paper.id === value.replace(/v\d+$/, "");
      if (key === "cat") return paper.categories.some((c) => c === value || c.split(".")[0] === value);
      if (key === "au")
        return value.split(",").every((name) => !name.trim() || textMatches(fieldTexts(paper, "au"), name));
      return textMatches(fieldTexts(paper, key), value);
    }),
  );
}

async function advancedAll(body: Record<string, unknown>, limit = 9) {
  const ids: string[] = [];
  const dates: string[] = [];
  let query: unknown;
  for (let page = 0; ; page++) {
    const response = await call(app, "/api/v1/papers/search", {
      method: "POST",
      key: account.apiKey,
      body: { ...body, page, limit },
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      data: Paper[];
      pagination: { hasMore: boolean; nextPage: number | null };
      query: unknown;
    };
    query = result.query;
    ids.push(...result.data.map((paper) => paper.id));
    dates.push(
      ...result.data.map((paper) => (body.sortBy === "lastUpdatedDate" ? paper.lastUpdatedDate : paper.submittedDate)),
    );
    if (!result.pagination.hasMore) return { ids, dates, query };
    expect(result.data).toHaveLength(limit);
  }
}

const OLD_STYLE = "hep-th/9901001";

const ADVANCED: Record<string, string>[] = [
  { ti: "quantum" },
  { ti: "black holes", cat: "astro-ph" },
  { au: "Zhang" },
  { au: "Zhang, Wang" },
  { abs: "dark matter" },
  { all: "galaxy" },
  { cat: "hep-th" },
  { cat: "hep-ph" },
  { cat: "astro-ph.CO" },
  { cat: "math" },
  { id: OLD_STYLE },
  { id: `${OLD_STYLE}v2` },
  { id: "0704.0476" },
  { ti: "spin", abs: "magnetic" },
  { ti: "model", au: "Li" },
  { jr: "Phys Rev" },
  { co: "figures", cat: "gr-qc" },
  { all: "Schrodinger" },
  { ti: "zzqxnothing" },
  { rn: "CERN" },
  { abs: "Monte Carlo", cat: "hep-ph" },
  { ti: "galaxies", au: "Wang" },
  { all: "quantum", cat: "quant-ph" },
  { au: "Smith, J." },
  { ti: "SUPERSYMMETRIC", all: "string" },
];

describe("POST /api/v1/papers/search (fielded)", () => {
  test.each(ADVANCED)("%o matches the reference exactly, over exact pages", async (filters) => {
    const { ids } = await advancedAll({ searchFilterString: filters });
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(advancedExpected(filters).map((paper) => paper.id)));
  });

  test("cat is exact: hep-th never returns a paper that is only hep-ph", async () => {
    const { ids } = await advancedAll({ searchFilterString: { cat: "hep-th" } });
    const onlyPh = papers.filter(
      (p) => p.categories.includes("hep-ph") && !p.categories.some((c) => c.startsWith("hep-th")),
    );
    expect(onlyPh.length).toBeGreaterThan(0);
    expect(ids.some((id) => onlyPh.some((p) => p.id === id))).toBe(false);
  });

  test.each([
    ["submittedDate", "descending"],
    ["submittedDate", "ascending"],
    ["lastUpdatedDate", "desc"],
    ["lastUpdatedDate", "asc"],
  ])("sortBy %s %s orders strictly by that date", async (sortBy, sortOrder) => {
    const filters = { ti: "model" };
    const { ids, dates, query } = await advancedAll({ searchFilterString: filters, sortBy, sortOrder });
    expect(new Set(ids)).toEqual(new Set(advancedExpected(filters).map((paper) => paper.id)));
    const sorted = [...dates].sort();
    expect(dates).toEqual(sortOrder.startsWith("asc") ? sorted : sorted.reverse());
    expect(query).toMatchObject({ sortBy, sortOrder: sortOrder.startsWith("asc") ? "ascending" : "descending" });
  });

  test("a date sort over several text filters (intersection path) is still strict and complete", async () => {
    const filters = { ti: "spin", abs: "magnetic" };
    const { ids, dates } = await advancedAll({
      searchFilterString: filters,
      sortBy: "submittedDate",
      sortOrder: "dsc",
    });
    expect(new Set(ids)).toEqual(new Set(advancedExpected(filters).map((paper) => paper.id)));
    expect(dates).toEqual([...dates].sort().reverse());
  });

  test.each([
    { submittedFrom: "2007-04-01", submittedTo: "2007-04-30" },
    { submittedFrom: "2010-07-01" },
    { updatedTo: "2008-12-31" },
    { updatedFrom: "2009-01-01", updatedTo: "2012-12-31" },
  ])("date range %o is inclusive, in UTC days", async (range) => {
    const filters = { ti: "the" };
    const { ids, query } = await advancedAll({ searchFilterString: filters, ...range });
    const day = (iso: string) => iso.slice(0, 10);
    const inRange = (paper: Paper) =>
      (!range.submittedFrom || day(paper.submittedDate) >= range.submittedFrom) &&
      (!range.submittedTo || day(paper.submittedDate) <= range.submittedTo) &&
      (!range.updatedFrom || day(paper.lastUpdatedDate) >= range.updatedFrom) &&
      (!range.updatedTo || day(paper.lastUpdatedDate) <= range.updatedTo);
    const reference = advancedExpected(filters).filter(inRange);
    expect(reference.length).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set(reference.map((paper) => paper.id)));
    expect(query).toMatchObject(range);
  });

  test("from == to selects exactly that day", async () => {
    const paper = papers.find((p) => p.title.toLowerCase().includes("quantum")) as Paper;
    const dayOf = paper.submittedDate.slice(0, 10);
    const { ids } = await advancedAll({
      searchFilterString: { ti: "quantum" },
      submittedFrom: dayOf,
      submittedTo: dayOf,
    });
    expect(ids).toContain(paper.id);
    for (const id of ids) expect(papers.find((p) => p.id === id)?.submittedDate.slice(0, 10)).toBe(dayOf);
  });

  test.each([{ ti: "quantum" }, { ti: "quantum", au: "Zhang" }])(
    "highlight: true marks the matched words of every text filter (%o)",
    async (filters) => {
      const response = await call(app, "/api/v1/papers/search", {
        method: "POST",
        key: account.apiKey,
        body: { searchFilterString: filters, highlight: true, limit: 5 },
      });
      const { data } = (await response.json()) as { data: (Paper & { highlight?: Record<string, string> })[] };
      expect(data.length).toBeGreaterThan(0);
      for (const paper of data) {
        expect(paper.highlight?.title?.toLowerCase()).toContain("<em>quantum</em>");
        if ("au" in filters) {
          expect(`${paper.highlight?.authors ?? ""} ${paper.highlight?.authorNames ?? ""}`).toContain("<em>Zhang</em>");
        }
      }
      const plain = await call(app, "/api/v1/papers/search", {
        method: "POST",
        key: account.apiKey,
        body: { searchFilterString: filters, limit: 5 },
      });
      for (const paper of ((await plain.json()) as { data: object[] }).data)
        expect(paper).not.toHaveProperty("highlight");
    },
  );

  test("invalid sortBy and sortOrder fall back to relevance and ascending, and say so", async () => {
    const { query } = await advancedAll({ searchFilterString: { ti: "spin" }, sortBy: "citations", sortOrder: "up" });
    expect(query).toEqual({ filters: { ti: "spin" }, sortBy: "relevance", sortOrder: "ascending" });
  });

  test("startIndex and maxResults are aliases of page and limit", async () => {
    const body = { searchFilterString: { ti: "quantum" } };
    const a = await call(app, "/api/v1/papers/search", {
      method: "POST",
      key: account.apiKey,
      body: { ...body, page: 1, limit: 3 },
    });
    const b = await call(app, "/api/v1/papers/search", {
      method: "POST",
      key: account.apiKey,
      body: { ...body, startIndex: 1, maxResults: 3 },
    });
    expect(((await b.json()) as { data: unknown }).data).toEqual(((await a.json()) as { data: unknown }).data);
  });

  test.each([
    ["no filter", { searchFilterString: {} }],
    ["only blank filters", { searchFilterString: { ti: "  ", au: "" } }],
    ["unknown filter key", { searchFilterString: { title: "x" } }],
    ["unknown body property", { searchFilterString: { ti: "x" }, user_id: "u" }],
    ["page and startIndex disagree", { searchFilterString: { ti: "x" }, page: 1, startIndex: 2 }],
    ["limit over 100", { searchFilterString: { ti: "x" }, limit: 101 }],
    ["filter not a string", { searchFilterString: { ti: 5 } }],
    ["missing searchFilterString", { ti: "x" }],
    ["a date that does not exist", { searchFilterString: { ti: "x" }, submittedFrom: "2007-02-30" }],
    ["a date in another format", { searchFilterString: { ti: "x" }, updatedTo: "31/12/2008" }],
    ["from after to", { searchFilterString: { ti: "x" }, submittedFrom: "2008-01-02", submittedTo: "2008-01-01" }],
  ])("%s → 400 with details", async (_, body) => {
    const response = await call(app, "/api/v1/papers/search", { method: "POST", key: account.apiKey, body });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.length).toBeGreaterThan(0);
  });

  test("no matches → 200 with an empty page", async () => {
    const response = await call(app, "/api/v1/papers/search", {
      method: "POST",
      key: account.apiKey,
      body: { searchFilterString: { ti: "zzqxnothing" } },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { pagination: unknown }).pagination).toEqual({
      page: 0,
      limit: 20,
      hasMore: false,
      nextPage: null,
    });
  });
});
