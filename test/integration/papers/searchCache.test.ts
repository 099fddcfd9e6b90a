import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { QueueEvents } from "bullmq";
import { createApp } from "../../../api/app";
import { stopProcess, waitFor } from "../../../scripts/lib/processes";
import { announceIndexChange, createSearchCache } from "../../../search-index/answerCache";
import { indexUid } from "../../../search-index/indexes";
import { closeDeps, createDeps, type Deps } from "../../../shared/context/deps";
import { redisTarget } from "../../../shared/core/env";
import { createRedis } from "../../../shared/core/redis";
import { enqueue } from "../../../shared/jobs/queue";
import type { Paper, SourcePaper } from "../../../shared/records/paper";
import { ownPrefix, removeServiceLogs, request, type Service, spawnService } from "../../helpers/faults";
import { call, createTestAccount, type TestAccount, type TestApp } from "../../helpers/http";
import { demoPapers, demoSources, ownIndexes } from "../../helpers/indexes";
import { processEnvFor, queueEventsFor, testDeps, testLog } from "../../helpers/infra";
import { deletePrefix } from "../../helpers/redisKeys";

/**
 * The search answer cache: a repeated search is answered from the process's cache, and never with
 * an answer older than the last index change announced; across processes, after a real ingest.
 */
let deps: Deps;
let app: TestApp;
let pro: TestAccount;
let free: TestAccount;
let paper: Paper;

beforeAll(async () => {
  deps = await ownIndexes(await testDeps(), "searchcache", { conditions: false });
  app = createApp(deps);
  pro = await createTestAccount(deps, "pro");
  free = await createTestAccount(deps, "free");
  paper = (await demoPapers()).find((p) => p.title.split(" ").length >= 4) as Paper;
}, 60_000);

const titleSearch = (key: string, q: string, limit = 20) =>
  call(app, `/api/v1/papers/search?q=${encodeURIComponent(q)}&limit=${limit}`, { key });
const served = (response: Response) => response.headers.get("x-search-cache");
/** Until the cache has confirmed the index version from Redis (its first search starts that). */
async function warm(key: string, q: string) {
  await waitFor("the cache confirmed the index version", async () => {
    await titleSearch(key, q);
    return served(await titleSearch(key, q)) === "hit";
  });
}

describe("through the REST API", () => {
  test("a repeated search is a hit with the same body; after an announced index change it misses", async () => {
    const q = paper.title.split(" ").slice(0, 3).join(" ");
    await warm(pro.apiKey, q);
    const first = await titleSearch(pro.apiKey, q);
    const again = await titleSearch(pro.apiKey, q);
    expect(served(again)).toBe("hit");
    expect(await again.text()).toBe(await first.text());
    await announceIndexChange(deps.redis, deps.env.REDIS_PREFIX, indexUid(deps.env.MEILI_INDEX_PREFIX, "papers"));
    await waitFor("the announcement arrived", async () => served(await titleSearch(pro.apiKey, q)) === "miss");
    // Kept the second time it is asked (the doorkeeper), served from the cache the third.
    expect(served(await titleSearch(pro.apiKey, q))).toBe("miss");
    expect(served(await titleSearch(pro.apiKey, q))).toBe("hit");
  });

  test("the plan's page cap is part of the key: free and pro asking limit=100 each get their own cap", async () => {
    const q = paper.title.split(" ").slice(0, 2).join(" ");
    await warm(pro.apiKey, q);
    const cap = deps.plans.free.maxPageSize;
    for (let round = 0; round < 3; round++) {
      const asFree = await titleSearch(free.apiKey, q, 100);
      const asPro = await titleSearch(pro.apiKey, q, 100);
      expect(((await asFree.json()) as { pagination: { limit: number } }).pagination.limit).toBe(cap);
      expect(((await asPro.json()) as { pagination: { limit: number } }).pagination.limit).toBe(100);
      if (round === 2) expect([served(asFree), served(asPro)]).toEqual(["hit", "hit"]);
    }
  });

  test("a fielded search written with its filters in another order is the same entry", async () => {
    const word = paper.title.split(" ")[0] as string;
    const category = paper.categories[0] as string;
    await warm(pro.apiKey, word);
    const search = (filters: Record<string, string>) =>
      call(app, "/api/v1/papers/search", { method: "POST", key: pro.apiKey, body: { searchFilterString: filters } });
    await search({ ti: word, cat: category });
    await search({ ti: word, cat: category });
    const reordered = await search({ cat: category, ti: word });
    expect(served(reordered)).toBe("hit");
    expect(((await reordered.json()) as { query: { filters: object } }).query.filters).toEqual({
      cat: category,
      ti: word,
    });
  });
});

describe("the cache itself", () => {
  const settings = { maxBytes: 64 * 1024, ttlMs: 60_000, freshForMs: 300 };
  const page = (bytes: number) => ({ data: new Uint8Array(bytes) });
  const sizeOf = (value: { data: Uint8Array }) => value.data.byteLength;

  type Cache = ReturnType<typeof createSearchCache>;

  /** A cache of its own on a fresh index name, once it has confirmed the version; closed after. */
  async function withCache(run: (cache: Cache, uid: string) => Promise<void>, redis = deps.redis) {
    const cache = createSearchCache({
      redis,
      subscriber: () => createRedis(redisTarget(deps.env), "worker"),
      prefix: deps.env.REDIS_PREFIX,
      settings,
    });
    const uid = `cache-${crypto.randomUUID()}`;
    try {
      await waitFor("confirmed", async () => {
        await cache.answer(uid, "probe", async () => page(1), sizeOf);
        return (await cache.answer(uid, "probe", async () => page(1), sizeOf)).cache === "hit";
      });
      await run(cache, uid);
    } finally {
      await cache.close();
    }
  }

  test("the byte bound holds: the least recently used answers go first", async () => {
    await withCache(async (cache, uid) => {
      for (let i = 0; i < 200; i++) {
        for (const _ of [1, 2]) await cache.answer(uid, `q${i}`, async () => page(1000), sizeOf);
      }
      expect(cache.stats().bytes).toBeLessThanOrEqual(settings.maxBytes);
      expect(cache.stats().entries).toBeGreaterThan(10);
      expect((await cache.answer(uid, "q199", async () => page(1000), sizeOf)).cache).toBe("hit");
      expect((await cache.answer(uid, "q0", async () => page(1000), sizeOf)).cache).toBe("miss");
      // An answer larger than the whole budget is served but not kept.
      for (const _ of [1, 2]) await cache.answer(uid, "huge", async () => page(settings.maxBytes * 2), sizeOf);
      expect((await cache.answer(uid, "huge", async () => page(1), sizeOf)).cache).toBe("miss");
    });
  });

  test("an answer is kept the second time its search is asked, so one-off searches cost no memory", async () => {
    await withCache(async (cache, uid) => {
      const held = cache.stats().bytes;
      for (let i = 0; i < 100; i++) await cache.answer(uid, `once${i}`, async () => page(500), sizeOf);
      expect(cache.stats().bytes).toBe(held);
      expect((await cache.answer(uid, "once7", async () => page(500), sizeOf)).cache).toBe("miss");
      expect((await cache.answer(uid, "once7", async () => page(500), sizeOf)).cache).toBe("hit");
      expect(cache.stats().bytes).toBeGreaterThan(held);
    });
  });

  test("concurrent identical searches share one call", async () => {
    await withCache(async (cache, uid) => {
      let calls = 0;
      const slow = async () => {
        calls += 1;
        await Bun.sleep(50);
        return page(10);
      };
      const answers = await Promise.all(Array.from({ length: 10 }, () => cache.answer(uid, "same", slow, sizeOf)));
      expect(calls).toBe(1);
      expect(answers.every((answer) => answer.cache === "miss")).toBe(true);
    });
  });

  test("an answer computed while the index changed is not kept", async () => {
    await withCache(async (cache, uid) => {
      await cache.answer(
        uid,
        "q",
        async () => {
          await announceIndexChange(deps.redis, deps.env.REDIS_PREFIX, uid);
          await Bun.sleep(100);
          return page(10);
        },
        sizeOf,
      );
      const next = await cache.answer(uid, "q", async () => page(10), sizeOf);
      expect(next.cache).not.toBe("hit");
    });
  });

  test("with Redis away the cache is bypassed, so nothing stale can be served", async () => {
    const own = createRedis(redisTarget(deps.env), "request");
    try {
      await withCache(async (cache, uid) => {
        expect((await cache.answer(uid, "probe", async () => page(1), sizeOf)).cache).toBe("hit");
        own.disconnect();
        await Bun.sleep(settings.freshForMs + 100);
        let computed = 0;
        const answer = await cache.answer(
          uid,
          "probe",
          async () => {
            computed += 1;
            return page(1);
          },
          sizeOf,
        );
        expect(answer.cache).toBe("bypass");
        expect(computed).toBe(1);
      }, own);
    } finally {
      own.disconnect();
    }
  });
});

describe("across processes", () => {
  let prefix: string;
  let own: Deps;
  let events: QueueEvents;
  const services: Service[] = [];

  afterAll(async () => {
    await Promise.all(services.map((service) => stopProcess(service.child, 2000)));
    await events?.close();
    if (own) await closeDeps(own);
    if (prefix) await deletePrefix(redisTarget(deps.env), prefix);
    await removeServiceLogs();
  });

  test("two API processes never answer from before an ingest once its job has finished", async () => {
    prefix = ownPrefix(deps.env, "sc");
    own = createDeps({ ...deps.env, REDIS_PREFIX: prefix }, { log: testLog });
    const env = { ...processEnvFor(deps.env), REDIS_PREFIX: prefix, SEARCH_CACHE_FRESH_MS: "1000" };
    services.push(await spawnService("workers", env), await spawnService("api", env), await spawnService("api", env));
    const apis = services.slice(1);
    events = await queueEventsFor(own, "papers");
    const target = (await demoSources()).find((p) => p.title.split(" ").length >= 5) as SourcePaper;
    const q = target.title.split(" ").slice(0, 4).join(" ");
    const search = async (api: Service) => {
      const response = await request(api, `/api/v1/papers/search?q=${encodeURIComponent(q)}&limit=5`, {
        key: pro.apiKey,
      });
      const body = (await response.json()) as { data: Paper[] };
      return { cache: served(response), titles: body.data.map((p) => p.title.replace(/\s+/g, " ")) };
    };
    for (const api of apis) {
      await waitFor("answers from the cache", async () => (await search(api)).cache === "hit", 15_000);
      expect((await search(api)).titles).toContain(target.title.replace(/\s+/g, " "));
    }
    const changed = `${q} revised edition`;
    const job = await enqueue(own.queues, "papers.index-batch", {
      records: [{ ...target, title: changed }],
    });
    await job.waitUntilFinished(events, 30_000);
    // The announcement travels on pub/sub: once an API answers with the change, it never again
    // answers with the old title.
    for (const api of apis) {
      await waitFor(
        "the index change to reach this API",
        async () => (await search(api)).titles.includes(changed),
        15_000,
      );
      for (let again = 0; again < 3; again++) {
        expect((await search(api)).titles).not.toContain(target.title.replace(/\s+/g, " "));
      }
    }
  }, 90_000);
});
