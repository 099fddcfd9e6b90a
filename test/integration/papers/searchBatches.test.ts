import { beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../../../scripts/lib/processes";
import { createMeili, type Meilisearch, searchIndex } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import {
  batchSizes,
  laneState,
  MAX_BATCH,
  MAX_IN_FLIGHT,
  type SearchServer,
  search,
  splitResults,
} from "../../../search-index/searchBatches";
import type { Deps } from "../../../shared/context/deps";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { toPaperDocument } from "../../../shared/papers/search/document";
import { titleSearchBody } from "../../../shared/papers/search/titleSearch";
import type { Paper } from "../../../shared/records/paper";
import { demoPapers } from "../../helpers/indexes";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let uid: string;
let papers: Paper[];
/** A client of this file's own: its searches have a queue of their own (searchBatches.ts keys them by server). */
let meili: Meilisearch;

beforeAll(async () => {
  const base = await testDeps();
  deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: `${base.env.MEILI_INDEX_PREFIX}batches_` } };
  await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX);
  papers = (await demoPapers()).slice(0, 400);
  uid = indexUid(deps.env.MEILI_INDEX_PREFIX, "papers");
  // Straight into this file's own index: the papers table is shared with the ingest tests.
  await deps.meili
    .index(uid)
    .addDocuments(papers.map(toPaperDocument), { primaryKey: "pk" })
    .waitTask({ timeout: 60_000 });
  meili = createMeili(deps.env.MEILI_URL as string, deps.env.MEILI_MASTER_KEY);
}, 60_000);

/** What Meilisearch answers the same search sent alone, straight over HTTP. */
async function alone(body: object): Promise<{ hits: unknown[]; totalHits: number }> {
  const response = await fetch(`${deps.env.MEILI_URL}/indexes/${uid}/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${deps.env.MEILI_MASTER_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { hits: unknown[]; totalHits: number };
}

/** A title word of 5+ letters from each of `count` papers, so every search has its own answer. */
function titleWords(count: number): string[] {
  const words = papers
    .map((paper) => paper.title.split(/[^A-Za-z]+/).find((word) => word.length >= 5))
    .filter((word): word is string => word !== undefined);
  return [...new Set(words)].slice(0, count);
}

function batchesSent(): Map<number, number> {
  return new Map(batchSizes);
}

function batchedSince(before: Map<number, number>): number {
  let batched = 0;
  for (const [size, count] of batchSizes) if (size > 1) batched += count - (before.get(size) ?? 0);
  return batched;
}

describe("searches coalesced into multi-search requests", () => {
  test("a burst shares requests, and every caller gets exactly its own search's answer", async () => {
    const words = titleWords(24);
    expect(words.length).toBe(24);
    const before = batchesSent();
    const bodies = words.map((word) => titleSearchBody(word, 0, 5));
    const answers = await Promise.all(
      bodies.map((body) => searchIndex<unknown, { totalHits: number }>(meili, uid, body)),
    );
    // 24 at once with 4 requests out: the first 4 go alone, the other 20 wait and leave in batches.
    expect(batchedSince(before)).toBeGreaterThan(0);
    for (const [i, answer] of answers.entries()) {
      const direct = await alone(bodies[i] as object);
      expect(direct.hits.length).toBeGreaterThan(0);
      expect(answer.hits).toEqual(direct.hits);
      expect(answer.totalHits).toBe(direct.totalHits);
    }
  });

  test("parsed answers (facets) come out of a batch whole", async () => {
    const words = titleWords(MAX_IN_FLIGHT + MAX_BATCH);
    const body = (q: string) => ({ q, facets: ["primaryCategory"], hitsPerPage: 0, page: 1 });
    const before = batchesSent();
    const answers = await Promise.all(words.map((word) => searchIndex(meili, uid, body(word))));
    expect(batchedSince(before)).toBe(1);
    for (const [i, answer] of answers.entries()) {
      const direct = (await alone(body(words[i] as string))) as unknown as { facetDistribution: unknown };
      expect((answer as unknown as { facetDistribution: unknown }).facetDistribution).toEqual(direct.facetDistribution);
    }
  });

  test("an invalid search in a batch fails alone; its batch-mates still get their answers", async () => {
    const words = titleWords(MAX_IN_FLIGHT + MAX_BATCH);
    // The first MAX_IN_FLIGHT leave alone; the rest wait and leave as one batch, the bad one inside it.
    const bad = MAX_IN_FLIGHT + 1;
    const bodies = words.map((word, i) =>
      i === bad ? { ...titleSearchBody(word, 0, 5), filter: "noSuchField = 1" } : titleSearchBody(word, 0, 5),
    );
    const before = batchesSent();
    const settled = await Promise.allSettled(bodies.map((body) => searchIndex(meili, uid, body)));
    expect(batchedSince(before)).toBe(1);
    for (const [i, outcome] of settled.entries()) {
      if (i === bad) {
        expect(outcome.status).toBe("rejected");
        expect(String((outcome as PromiseRejectedResult).reason)).toContain("answered 400");
        continue;
      }
      expect(outcome.status).toBe("fulfilled");
      const answer = (outcome as PromiseFulfilledResult<{ hits: unknown[] }>).value;
      expect(answer.hits).toEqual((await alone(bodies[i] as object)).hits);
    }
  });
});

type Fake = { target: SearchServer; count: (path: string) => number };

/** Runs `check` against a stand-in server that records each request's path and answers with `answer`. */
async function withFakeServer(answer: (path: string) => Promise<Response>, check: (fake: Fake) => Promise<void>) {
  const received: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      received.push(path);
      return answer(path);
    },
  });
  try {
    await check({
      target: { base: `http://127.0.0.1:${server.port}`, headers: {}, timeoutMs: 300 },
      count: (path) => received.filter((p) => p === path).length,
    });
  } finally {
    server.stop(true);
  }
}

/** Every slot is free again (a slot is handed back just after its searches' callers are answered). */
async function slotsBack(target: SearchServer) {
  await waitFor("the lane's slots back", async () => laneState(target).inFlight === 0, 2000);
  expect(laneState(target)).toEqual({ inFlight: 0, queued: 0 });
}

const burst = (target: SearchServer, count: number) =>
  Promise.allSettled(Array.from({ length: count }, (_, i) => search(target, "papers", { q: `w${i}` })));

const reasons = (settled: PromiseSettledResult<Buffer>[]) =>
  settled.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "fulfilled"));

describe("a server in trouble", () => {
  test("one that never answers: every search fails by the timeout, nothing is resent, slots come back", async () => {
    await withFakeServer(
      () => new Promise<Response>(() => {}),
      async (fake) => {
        const why = reasons(await burst(fake.target, MAX_IN_FLIGHT + 2));
        // The first MAX_IN_FLIGHT went out alone and timed out. The other two had waited about as
        // long by then: they fail unsent, or leave as one batch that times out in turn.
        for (const reason of why.slice(0, MAX_IN_FLIGHT)) expect(reason).toMatch(/timed? ?out|abort/i);
        for (const reason of why.slice(MAX_IN_FLIGHT)) expect(reason).toMatch(/timed? ?out|abort|waited too long/i);
        expect(fake.count("/indexes/papers/search")).toBe(MAX_IN_FLIGHT);
        expect(fake.count("/multi-search")).toBeLessThanOrEqual(1);
        await slotsBack(fake.target);
      },
    );
  });

  test("a 5xx for a batch fails its searches without resending them one by one", async () => {
    const busy = async (path: string) => {
      if (path !== "/multi-search") await Bun.sleep(50);
      return Response.json({ message: "busy", code: "too_many_search_requests" }, { status: 503 });
    };
    await withFakeServer(busy, async (fake) => {
      const why = reasons(await burst(fake.target, MAX_IN_FLIGHT + 2));
      expect(why.slice(0, MAX_IN_FLIGHT).every((reason) => reason.includes("search on papers answered 503"))).toBe(
        true,
      );
      expect(why.slice(MAX_IN_FLIGHT).every((reason) => reason.includes("multi-search answered 503"))).toBe(true);
      expect(fake.count("/indexes/papers/search")).toBe(MAX_IN_FLIGHT);
      expect(fake.count("/multi-search")).toBe(1);
      await slotsBack(fake.target);
    });
  });

  test("a body that cannot be serialised fails alone", async () => {
    const empty = async () => Response.json({ hits: [], query: "", totalHits: 0 });
    await withFakeServer(empty, async (fake) => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(search(fake.target, "papers", cyclic)).rejects.toThrow();
      expect(fake.count("/indexes/papers/search")).toBe(0);
      expect((await search(fake.target, "papers", { q: "x" })).toString()).toContain('"hits":[]');
    });
  });
});

describe("splitResults", () => {
  const result = (indexUid: string, title: string) => ({
    indexUid,
    hits: [{ id: "1", title }],
    query: title,
    totalHits: 1,
  });

  test("cuts the answer into each result's bytes, whatever the strings hold", () => {
    // A title holding the separator text: inside a string its quotes are escaped, so it cannot split.
    const tricky = 'a},{"indexUid":"papers","hits":[ ]}';
    const results = [result("papers", tricky), result("conditions", "b"), result("papers", "c ]}")];
    const bytes = Buffer.from(JSON.stringify({ results }));
    const pieces = splitResults(bytes, ["papers", "conditions", "papers"]);
    expect(pieces.map((piece) => JSON.parse(piece.toString()))).toEqual(results);
  });

  test("an answer of another layout is parsed as a whole", () => {
    const reordered = [{ hits: [], indexUid: "papers", totalHits: 0 }, result("papers", "x")];
    const bytes = Buffer.from(JSON.stringify({ results: reordered }, null, 1));
    expect(splitResults(bytes, ["papers", "papers"]).map((piece) => JSON.parse(piece.toString()))).toEqual(reordered);
  });

  test("a result for another index, or a count that does not match, is never handed out", () => {
    const bytes = Buffer.from(JSON.stringify({ results: [result("papers", "x"), result("papers", "y")] }));
    for (const uids of [["papers", "conditions"], ["papers"], ["papers", "papers", "papers"]]) {
      expect(() => splitResults(bytes, uids)).toThrow("do not match");
    }
  });
});
