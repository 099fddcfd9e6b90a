import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { HealthLogSummary } from "../../../shared/health/summary";
import { addEntry, createTracker, type EntryBody, healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;
let key: string;
let logId: string;
const saved: EntryBody[] = [];

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
  key = (await healthAccount(deps, app)).apiKey;
  logId = (await createTracker(app, key, "Flu")).id;
  for (const body of [
    { severity: 4, symptoms: ["fever", "cough"], temperature: 38.5, temperatureUnit: "C", activityImpact: "limited" },
    { severity: 8, symptoms: ["Fever"], temperature: 102.2, temperatureUnit: "F", activityImpact: "unable" },
    { note: '=HYPERLINK("http://x"), "quoted", and\na newline' },
    { severity: 3, symptoms: ["cough"], activityImpact: "normal" },
  ]) {
    saved.push(await json<EntryBody>(await addEntry(app, key, logId, body)));
  }
});

describe("export", () => {
  test("JSON (the default): the log and every entry, oldest first, as an attachment", async () => {
    const response = await call(app, `/api/v1/health/trackers/${logId}/export`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="health-log-${logId}.json"`);
    const body = await json<{ tracker: { id: string; title: string }; entries: EntryBody[]; exportedAt: string }>(
      response,
    );
    expect(body.tracker).toMatchObject({ id: logId, title: "Flu" });
    expect(body.entries).toEqual(saved);
  });

  test("CSV: header row, one row per entry, RFC 4180 quoting, formulas neutralised", async () => {
    const response = await call(app, `/api/v1/health/trackers/${logId}/export?format=csv`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("x-request-id")).toEqual(expect.any(String));
    const text = await response.text();
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("id,recordedAt,severity,symptoms,temperature,temperatureUnit,activityImpact,note");
    expect(lines[1]).toBe(`${saved[0]?.id},${saved[0]?.recordedAt},4,fever; cough,38.5,C,limited,`);
    expect(lines[2]).toBe(`${saved[1]?.id},${saved[1]?.recordedAt},8,Fever,102.2,F,unable,`);
    // The note holds a quote, a comma and a newline, and starts with "=": quoted, doubled, prefixed.
    expect(text).toContain(`,,,,,,"'=HYPERLINK(""http://x""), ""quoted"", and\na newline"\r\n`);
    expect(text.endsWith("\r\n")).toBe(true);
  });

  test("an unknown format is 400; export needs consent", async () => {
    const bad = await call(app, `/api/v1/health/trackers/${logId}/export?format=xlsx`, { key });
    expect(bad.status).toBe(400);
    await errorOf(bad);
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    await deps.sql`delete from health_profiles where account_id = ${account.accountId}`;
    const response = await call(app, `/api/v1/health/trackers/${log.id}/export`, { key: account.apiKey });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
  });
});

describe("summary", () => {
  test("counts, severity stats, temperature range in one unit, activity impact, one day", async () => {
    const response = await call(app, `/api/v1/health/trackers/${logId}/summary`, { key });
    expect(response.status).toBe(200);
    const summary = await json<HealthLogSummary>(response);
    expect(summary).toMatchObject({
      trackerId: logId,
      entryCount: 4,
      firstRecordedAt: saved[0]?.recordedAt,
      lastRecordedAt: saved[3]?.recordedAt,
      severity: { count: 3, min: 3, avg: 5, max: 8, trendPerDay: null },
      temperature: { unit: "C", count: 2, min: 38.5, max: 39 },
      symptoms: [
        { symptom: "cough", count: 2 },
        { symptom: "fever", count: 2 },
      ],
      activityImpact: { normal: 1, limited: 1, unable: 1, daysWithImpact: 1 },
    });
    expect(summary.days).toHaveLength(1);
    expect(summary.days[0]).toMatchObject({ entries: 4, activityImpact: "unable", temperatureMax: 39 });
  });

  test("unit=F converts; an unknown unit is 400", async () => {
    const summary = await json<HealthLogSummary>(
      await call(app, `/api/v1/health/trackers/${logId}/summary?unit=F`, { key }),
    );
    expect(summary.temperature).toEqual({ unit: "F", count: 2, min: 101.3, max: 102.2 });
    expect((await call(app, `/api/v1/health/trackers/${logId}/summary?unit=K`, { key })).status).toBe(400);
  });
});
