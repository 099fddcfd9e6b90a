import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stopProcess, waitFor } from "../../../scripts/lib/processes";
import { createMeili } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import type { Deps } from "../../../shared/context/deps";
import { type Env, redisTarget } from "../../../shared/core/env";
import { createRedis, redisReady } from "../../../shared/core/redis";
import { createSql, type Sql } from "../../../shared/db/sql";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { toPaperDocument } from "../../../shared/papers/search/document";
import { parseSourceLine, toPaper } from "../../../shared/records/paper";
import {
  addEntry,
  duringOutages,
  FAULT_OUTAGE_MS,
  FAULT_TEST_TIMEOUT_MS,
  healthWriter,
  type Outcome,
  outages,
  ownPrefix,
  type PrivateServer,
  privateMeili,
  privatePostgres,
  privateRedis,
  REQUEST_DEADLINE_MS,
  removeServiceLogs,
  request,
  runLoad,
  type Service,
  spawnService,
  summarize,
} from "../../helpers/faults";
import { errorOf } from "../../helpers/http";
import { processEnvFor, testDeps } from "../../helpers/infra";
import { deletePrefix } from "../../helpers/redisKeys";

/**
 * Dependencies stopped under a real API process: Redis, Meilisearch and PostgreSQL (each a private
 * server of this file's, never the machine's shared ones). Every request is recorded: it must be a
 * success or a 503 with Retry-After, finish within REQUEST_DEADLINE_MS, and the API recovers by
 * itself when the dependency returns. Invariants are checked in SQL afterwards.
 */
let base: Deps;
let env: Env;
const services: Service[] = [];
const servers: PrivateServer[] = [];
const prefixes: string[] = [];
const report: Record<string, unknown> = {};

beforeAll(async () => {
  base = await testDeps();
  env = base.env;
});

afterAll(async () => {
  await Promise.all(services.map((service) => stopProcess(service.child, 2000)));
  await Promise.all(servers.map((server) => server.destroy()));
  for (const prefix of prefixes) await deletePrefix(redisTarget(env), prefix);
  await removeServiceLogs();
  if (Object.keys(report).length > 0) console.info("faults: outages", JSON.stringify(report));
});

async function startApi(overrides: Record<string, string>): Promise<Service> {
  const api = await spawnService("api", { ...processEnvFor(env), ...overrides });
  services.push(api);
  return api;
}

/** How many of these ids are stored in the table. */
async function countPresent(db: Sql, table: "trackers" | "tracker_entries", ids: string[]): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from ${db(table)} where id = any(${ids}::uuid[])`;
  return row?.n ?? 0;
}

async function countEntries(db: Sql, trackerIds: string[]): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from tracker_entries where tracker_id = any(${trackerIds}::uuid[])`;
  return row?.n ?? 0;
}

function expectOnlySuccessOr503(outcomes: Outcome[]) {
  const summary = summarize(outcomes);
  // Never a 500, never a hang past the deadline (a status 0 is a refused, reset or timed-out request).
  expect(summary.unexpected.slice(0, 5)).toEqual([]);
  expect(summary.unavailableWithoutRetryAfter).toBe(0);
  expect(summary.slowestMs).toBeLessThan(REQUEST_DEADLINE_MS);
  return summary;
}

describe("faults: dependencies stopped under load", () => {
  test(
    `Redis stopped for ${FAULT_OUTAGE_MS / 1000} s under tracker-entry writers: 503 + Retry-After, then recovery without restart; no acknowledged entry lost`,
    async () => {
      const redisServer = await privateRedis();
      servers.push(redisServer);
      const prefix = ownPrefix(env, "fr");
      prefixes.push(prefix);
      const api = await startApi({ REDIS_URL: redisServer.url, REDIS_PREFIX: prefix });
      const setupRedis = createRedis(redisServer.url, "request");
      await redisReady(setupRedis);
      const writers = await Promise.all(
        Array.from({ length: 6 }, () => healthWriter(api, { ...base, redis: setupRedis }, prefix)),
      );
      setupRedis.disconnect();

      // At most 170 acknowledged entries per log: below the 180 a log keeps, so every one must stay.
      const load = runLoad(writers.length, (w, signal) => addEntry(api, writers[w] as (typeof writers)[0], signal), {
        maxOk: 170,
        pauseMs: 40,
      });
      await waitFor("load running", async () => load.outcomes.filter((o) => o.status === 201).length >= 12);
      const windows = await outages(redisServer, load);
      const outcomes = await load.stop();

      const summary = expectOnlySuccessOr503(outcomes);
      // Requests sent once Redis was gone and answered before it was back. Some may still succeed on
      // request slots leased from Redis before the outage (shared/ratelimit/leases.ts); the rest are 503.
      const during = duringOutages(outcomes, windows);
      const refused = during.filter((o) => o.status === 503 && o.errorCode === "UNAVAILABLE");
      expect(refused.length, "requests refused during the outage").toBeGreaterThan(0);
      expect(during.filter((o) => o.status !== 503 && o.status !== 201)).toEqual([]);
      const onLeases = during.length - refused.length;
      expect(api.child.exitCode).toBeNull();

      const acknowledged = outcomes.filter((o) => o.status === 201).map((o) => o.id as string);
      expect(await countPresent(base.sql, "tracker_entries", acknowledged)).toBe(acknowledged.length);
      const total = await countEntries(
        base.sql,
        writers.map((w) => w.trackerId),
      );
      report.redis = {
        ...summary,
        unexpected: summary.unexpected.length,
        outages: windows.map(({ outageMs, recoveryMs }) => ({ outageMs, recoveryMsAfterRestart: recoveryMs })),
        servedOnLeasedSlotsDuringOutage: onLeases,
        acknowledged: acknowledged.length,
        storedButNotAcknowledged: total - acknowledged.length,
      };
    },
    FAULT_TEST_TIMEOUT_MS,
  );

  test("Meilisearch stopped: paper search 503 with the documented body; health, account and logs keep working; search returns without an API restart", async () => {
    const meili = await privateMeili();
    servers.push(meili);
    const indexPrefix = `${env.MEILI_INDEX_PREFIX}fm_`;
    const client = createMeili(meili.url, meili.masterKey);
    await applyIndexSettings(client, indexPrefix);
    const text = new TextDecoder().decode(
      Bun.gunzipSync(await Bun.file(`${import.meta.dir}/../../fixtures/arxiv/papers-1k.jsonl.gz`).bytes()),
    );
    const documents = text
      .split("\n")
      .filter(Boolean)
      .slice(0, 200)
      .map((line) => toPaperDocument(toPaper(parseSourceLine(line))));
    await client
      .index(indexUid(indexPrefix, "papers"))
      .addDocuments(documents, { primaryKey: "pk" })
      .waitTask({ timeout: 30_000 });
    const prefix = ownPrefix(env, "fm");
    prefixes.push(prefix);
    const api = await startApi({
      MEILI_URL: meili.url,
      MEILI_MASTER_KEY: meili.masterKey,
      MEILI_INDEX_PREFIX: indexPrefix,
      REDIS_PREFIX: prefix,
    });
    const w = await healthWriter(api, base, prefix);
    const search = () => request(api, "/api/v1/papers/search?q=quantum", { key: w.apiKey });
    const before = await search();
    expect(before.status).toBe(200);
    expect(((await before.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

    await meili.stop();
    const stoppedAt = performance.now();
    const down = await search();
    expect(down.status).toBe(503);
    expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(down);
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("Meilisearch");
    expect((await request(api, "/healthz")).status).toBe(200);
    expect((await request(api, "/api/v1/account", { key: w.apiKey })).status).toBe(200);
    expect((await addEntry(api, w)).status).toBe(201);
    expect((await request(api, `/api/v1/health/trackers/${w.trackerId}`, { key: w.apiKey })).status).toBe(200);
    const ready = await request(api, "/readyz");
    expect(ready.status).toBe(503);
    const checks = ((await ready.json()) as { checks: Record<string, { ok: boolean }> }).checks;
    expect(checks).toMatchObject({ meilisearch: { ok: false }, postgres: { ok: true }, redis: { ok: true } });

    await meili.start();
    const restartedAt = performance.now();
    await waitFor("search after Meilisearch returns", async () => (await search()).status === 200);
    const recoveryMs = Math.round(performance.now() - restartedAt);
    expect((await request(api, "/readyz")).status).toBe(200);
    expect(api.child.exitCode).toBeNull();
    report.meilisearch = { outageMs: Math.round(restartedAt - stoppedAt), recoveryMsAfterRestart: recoveryMs };
  }, 60_000);

  test(
    "PostgreSQL crashed (pg_ctl stop -m immediate) under concurrent writes: 503 never 500, nothing half-applied, recovery without restart",
    async () => {
      let pg: PrivateServer;
      try {
        pg = await privatePostgres();
      } catch (error) {
        throw new Error(`A private PostgreSQL cluster could not be created here: ${(error as Error).message}`);
      }
      servers.push(pg);
      const sql: Sql = createSql(pg.url, { max: 2 });
      const prefix = ownPrefix(env, "fp");
      prefixes.push(prefix);
      const api = await startApi({ DATABASE_URL: pg.url, REDIS_PREFIX: prefix });
      const deps = { ...base, sql };
      const entryWriters = await Promise.all(Array.from({ length: 3 }, () => healthWriter(api, deps, prefix)));
      const creator = await healthWriter(api, deps, prefix);
      const cycler = await healthWriter(api, deps, prefix);

      // The cycler walks: save profile → create log → add entry → delete profile (deletes the logs), and
      // repeats a step until it succeeds, so every step runs while PostgreSQL goes down at some point.
      let step = 0;
      let cyclerTracker = cycler.trackerId;
      const cycle = async (signal: AbortSignal) => {
        const current = step % 4;
        const response =
          current === 0
            ? await request(api, "/api/v1/health/profile", {
                method: "POST",
                key: cycler.apiKey,
                body: { consentGiven: true, conditions: [], medications: [] },
                signal,
              })
            : current === 1
              ? await request(api, "/api/v1/health/trackers", {
                  method: "POST",
                  key: cycler.apiKey,
                  body: { title: "Cycle", kind: "acute" },
                  signal,
                })
              : current === 2
                ? await addEntry(api, { apiKey: cycler.apiKey, trackerId: cyclerTracker }, signal)
                : await request(api, "/api/v1/health/profile?confirm=delete", {
                    method: "DELETE",
                    key: cycler.apiKey,
                    signal,
                  });
        if (response.ok) {
          if (current === 1) cyclerTracker = ((await response.clone().json()) as { id: string }).id;
          step += 1;
        }
        return response;
      };
      const writers = entryWriters.length;
      const load = runLoad(
        writers + 2,
        (w, signal) => {
          if (w < writers) return addEntry(api, entryWriters[w] as (typeof entryWriters)[0], signal);
          if (w === writers) {
            return request(api, "/api/v1/health/trackers", {
              method: "POST",
              key: creator.apiKey,
              body: { title: "Created under load", kind: "custom" },
              signal,
            });
          }
          return cycle(signal);
        },
        { maxOk: 170, pauseMs: 25 },
      );
      await waitFor("load running", async () => load.outcomes.filter((o) => o.status === 201).length >= 12);
      const windows = await outages(pg, load);
      // At least one full round of the cycler (on a loaded machine the time after recovery may not hold one).
      await waitFor("the cycler going round once", async () => step > 4);
      const outcomes = await load.stop();
      const summary = expectOnlySuccessOr503(outcomes);
      // Requests sent once the server was gone and answered before it was back: all 503.
      const during = duringOutages(outcomes, windows);
      expect(during.length, "requests answered during the outage").toBeGreaterThan(0);
      expect(during.filter((o) => o.status !== 503 || o.errorCode !== "UNAVAILABLE")).toEqual([]);
      expect(api.child.exitCode).toBeNull();

      // Every acknowledged entry and log is stored.
      const ackEntries = outcomes.filter((o) => o.writer < writers && o.status === 201).map((o) => o.id as string);
      expect(await countPresent(sql, "tracker_entries", ackEntries)).toBe(ackEntries.length);
      const ackLogs = outcomes.filter((o) => o.writer === writers && o.status === 201).map((o) => o.id as string);
      expect(await countPresent(sql, "trackers", ackLogs)).toBe(ackLogs.length);
      // No half-applied entry: each log's counter equals its newest entry, and its entries are 1..n with no gap.
      const broken = await sql`
      select t.id, t.entry_seq, count(e.id)::int as entries, min(e.seq) as first, max(e.seq) as last
      from trackers t left join tracker_entries e on e.tracker_id = t.id
      group by t.id
      having t.entry_seq <> coalesce(max(e.seq), 0) or count(e.id) <> t.entry_seq or coalesce(min(e.seq), 1) <> 1`;
      expect([...broken]).toEqual([]);
      // No half-applied profile deletion: no log outlives its account's consent.
      const orphans = await sql`
      select t.id from trackers t
      where not exists (select 1 from health_profiles p where p.account_id = t.account_id)`;
      expect([...orphans]).toEqual([]);
      const total = await countEntries(
        sql,
        entryWriters.map((w) => w.trackerId),
      );
      await sql.end({ timeout: 5 });
      report.postgres = {
        ...summary,
        unexpected: summary.unexpected.length,
        outages: windows.map(({ outageMs, recoveryMs }) => ({ outageMs, recoveryMsAfterRestart: recoveryMs })),
        acknowledgedEntries: ackEntries.length,
        storedButNotAcknowledged: total - ackEntries.length,
        cyclerSteps: step,
      };
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
