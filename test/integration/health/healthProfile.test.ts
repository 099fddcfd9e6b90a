import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

const save = (key: string, body: unknown) => call(app, "/api/v1/health/profile", { method: "POST", key, body });
const read = (key: string) => call(app, "/api/v1/health/profile", { key });

describe("health profile", () => {
  test("an account without a profile reads as no consent, empty lists, null timestamps", async () => {
    const account = await createTestAccount(deps, "go");
    const response = await read(account.apiKey);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      consentGiven: false,
      conditions: [],
      medications: [],
      consentedAt: null,
      updatedAt: null,
      allergies: [],
      importedConditions: [],
      importedMedications: [],
      immunizations: [],
    });
  });

  test("saving stores trimmed, deduplicated (ignoring case) lists and returns the stored profile", async () => {
    const account = await createTestAccount(deps, "go");
    const response = await save(account.apiKey, {
      consentGiven: true,
      conditions: ["  Asthma ", "asthma", "Type 2 diabetes"],
      medications: ["Metformin 500 mg", "METFORMIN 500 MG", " salbutamol"],
    });
    expect(response.status).toBe(200);
    const saved = await json<Record<string, unknown>>(response);
    expect(saved.consentGiven).toBe(true);
    expect(saved.conditions).toEqual(["Asthma", "Type 2 diabetes"]);
    expect(saved.medications).toEqual(["Metformin 500 mg", "salbutamol"]);
    expect(typeof saved.updatedAt).toBe("string");
    expect(await json(await read(account.apiKey))).toEqual(saved);
  });

  test("saving replaces the lists; omitted lists are saved empty; consentedAt stays the first consent", async () => {
    const account = await createTestAccount(deps, "go");
    const first = await json<Record<string, unknown>>(
      await save(account.apiKey, { consentGiven: true, conditions: ["Asthma"], medications: ["Salbutamol"] }),
    );
    const second = await json<Record<string, unknown>>(
      await save(account.apiKey, { consentGiven: true, conditions: ["Migraine"] }),
    );
    expect(second.conditions).toEqual(["Migraine"]);
    expect(second.medications).toEqual([]);
    expect(second.consentedAt).toBe(first.consentedAt as string);
    expect(Date.parse(second.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt as string));
  });

  test("consentGiven other than true, bad lists and unknown properties are 400 and store nothing", async () => {
    const account = await createTestAccount(deps, "go");
    const bad: unknown[] = [
      { consentGiven: false, conditions: [] },
      { conditions: ["Asthma"] },
      { consentGiven: "true" },
      { consentGiven: true, conditions: ["x".repeat(201)] },
      { consentGiven: true, conditions: [""] },
      { consentGiven: true, medications: ["   "] },
      { consentGiven: true, medications: Array.from({ length: 51 }, (_, i) => `drug ${i}`) },
      { consentGiven: true, conditions: "Asthma" },
      { consentGiven: true, user_id: "someone-else" },
    ];
    for (const body of bad) {
      const response = await save(account.apiKey, body);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
    expect((await json(await read(account.apiKey))).consentGiven).toBe(false);
  });

  test("the limits themselves are accepted: 50 items of 200 characters", async () => {
    const account = await createTestAccount(deps, "go");
    const items = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(200, "x"));
    const response = await save(account.apiKey, { consentGiven: true, conditions: items, medications: items });
    expect(response.status).toBe(200);
    expect((await json<{ conditions: string[] }>(response)).conditions).toHaveLength(50);
  });

  test("DELETE without confirm=delete is 400 and deletes nothing", async () => {
    const account = await healthAccount(deps, app);
    const tracker = await createTracker(app, account.apiKey);
    for (const query of ["", "?confirm=yes", "?confirm=DELETE"]) {
      const response = await call(app, `/api/v1/health/profile${query}`, { method: "DELETE", key: account.apiKey });
      expect(response.status).toBe(400);
      await errorOf(response);
    }
    expect((await json(await read(account.apiKey))).consentGiven).toBe(true);
    expect((await call(app, `/api/v1/health/trackers/${tracker.id}`, { key: account.apiKey })).status).toBe(200);
  });

  test("DELETE ?confirm=delete removes profile, every log and entry, and lab panels; consent is gone", async () => {
    const account = await healthAccount(deps, app);
    const other = await healthAccount(deps, app);
    const mine = [await createTracker(app, account.apiKey, "one"), await createTracker(app, account.apiKey, "two")];
    const theirs = await createTracker(app, other.apiKey, "theirs");
    for (const tracker of [...mine, theirs]) {
      const key = tracker === theirs ? other.apiKey : account.apiKey;
      expect((await addEntry(app, key, tracker.id, { severity: 3 })).status).toBe(201);
    }
    const panel = { collectedAt: "2026-01-01T00:00:00Z", results: [{ name: "HbA1c", value: 6.1, unit: "%" }] };
    for (const key of [account.apiKey, other.apiKey]) {
      expect((await call(app, "/api/v1/health/labs", { method: "POST", key, body: panel })).status).toBe(201);
    }

    const response = await call(app, "/api/v1/health/profile?confirm=delete", {
      method: "DELETE",
      key: account.apiKey,
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      deleted: true,
      trackersDeleted: 2,
      labPanelsDeleted: 1,
      recordImportsDeleted: 0,
      shareLinksDeleted: 0,
    });

    expect((await json(await read(account.apiKey))).consentGiven).toBe(false);
    const counts = await deps.sql<{ trackers: number; entries: number; panels: number }[]>`
      select
        (select count(*)::int from trackers where account_id = ${account.accountId}) as trackers,
        (select count(*)::int from tracker_entries where tracker_id = any(${mine.map((t) => t.id)}::uuid[])) as entries,
        (select count(*)::int from lab_panels where account_id = ${account.accountId}) as panels`;
    expect(counts[0]).toEqual({ trackers: 0, entries: 0, panels: 0 });
    // Another account's data is untouched.
    expect((await call(app, `/api/v1/health/trackers/${theirs.id}`, { key: other.apiKey })).status).toBe(200);
    const [{ panels }] = (await deps.sql`
      select count(*)::int as panels from lab_panels where account_id = ${other.accountId}`) as unknown as [
      { panels: number },
    ];
    expect(panels).toBe(1);
    // Consent is needed again to create a log; repeating the deletion is harmless.
    const create = await call(app, "/api/v1/health/trackers", {
      method: "POST",
      key: account.apiKey,
      body: { title: "again", kind: "acute" },
    });
    expect(create.status).toBe(403);
    expect((await errorOf(create)).code).toBe("CONSENT_REQUIRED");
    const again = await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: account.apiKey });
    expect(await json(again)).toEqual({
      deleted: true,
      trackersDeleted: 0,
      labPanelsDeleted: 0,
      recordImportsDeleted: 0,
      shareLinksDeleted: 0,
    });
  });

  test("a deletion racing with entry writes leaves nothing behind", async () => {
    const account = await healthAccount(deps, app);
    const tracker = await createTracker(app, account.apiKey);
    const writes = Array.from({ length: 30 }, (_, i) =>
      addEntry(app, account.apiKey, tracker.id, { severity: i % 11 }),
    );
    const deletion = call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: account.apiKey });
    const statuses = (await Promise.all([...writes, deletion])).map((response) => response.status);
    // Every write either landed before the deletion (201) or found no consent / no log afterwards.
    for (const status of statuses.slice(0, -1)) expect([201, 403, 404]).toContain(status);
    expect(statuses.at(-1)).toBe(200);
    const [{ left }] = (await deps.sql`
      select count(*)::int as left from tracker_entries where tracker_id = ${tracker.id}`) as unknown as [
      { left: number },
    ];
    expect(left).toBe(0);
  });

  test("free accounts get 403 PLAN_REQUIRED on every profile operation", async () => {
    const account = await createTestAccount(deps, "free");
    for (const [method, path, body] of [
      ["GET", "/api/v1/health/profile", undefined],
      ["POST", "/api/v1/health/profile", { consentGiven: true }],
      ["DELETE", "/api/v1/health/profile?confirm=delete", undefined],
    ] as const) {
      const response = await call(app, path, { method, key: account.apiKey, body });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
    }
  });
});
