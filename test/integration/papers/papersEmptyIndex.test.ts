import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { searchConditionCandidates, searchRelatedPapers } from "../../../shared/conditions/search/query";
import type { Deps } from "../../../shared/context/deps";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { call, createTestAccount, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/**
 * A new deployment's indexes have their settings but no documents yet. Meilisearch then refuses a
 * search on a listed field (it knows fields only from documents); the service answers what is
 * true: nothing found, never a 503.
 */
let deps: Deps;
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  const base = await testDeps();
  deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: `${base.env.MEILI_INDEX_PREFIX}empty_` } };
  await applyIndexSettings(deps.meili, deps.env.MEILI_INDEX_PREFIX);
  app = createApp(deps);
  account = await createTestAccount(deps, "pro");
});

const page = async (response: Response) => {
  expect(response.status).toBe(200);
  return json<{ data: unknown[]; pagination: { hasMore: boolean } }>(response);
};

describe("searches on empty indexes find nothing", () => {
  test("title search", async () => {
    const found = await page(await call(app, "/api/v1/papers/search?q=quantum", { key: account.apiKey }));
    expect(found).toMatchObject({ data: [], pagination: { hasMore: false } });
  });

  test.each([{ ti: "quantum" }, { au: "smith", cat: "cs" }, { ti: "black", abs: "holes" }])(
    "fielded search %o, by relevance, by date and highlighted",
    async (filters) => {
      for (const extra of [{}, { sortBy: "submittedDate", sortOrder: "desc" }, { highlight: true }]) {
        const body = { searchFilterString: filters, ...extra };
        const found = await page(
          await call(app, "/api/v1/papers/search", { method: "POST", key: account.apiKey, body }),
        );
        expect(found.data).toEqual([]);
      }
    },
  );

  test("condition search, lookup and related papers", async () => {
    const search = await call(app, "/api/v1/health/conditions/search?q=asthma", { key: account.apiKey });
    expect(await json(search)).toEqual({ query: "asthma", data: [] });
    expect((await call(app, "/api/v1/health/condition?q=asthma", { key: account.apiKey })).status).toBe(404);
    const prefix = deps.env.MEILI_INDEX_PREFIX;
    expect(await searchConditionCandidates(deps.meili, prefix, "asthma", 5)).toEqual([]);
    expect(await searchRelatedPapers(deps.meili, prefix, ["asthma", "wheeze"], 5)).toEqual([]);
  });
});
