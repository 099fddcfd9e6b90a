import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { addEntry, createTracker, type EntryBody, healthAccount, type TrackerBody } from "../../helpers/health";
import { call, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;
let key: string;
let logId: string;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
  key = (await healthAccount(deps, app)).apiKey;
  logId = (await createTracker(app, key)).id;
});

async function accepted(body: unknown): Promise<EntryBody> {
  const response = await addEntry(app, key, logId, body);
  if (response.status !== 201) throw new Error(`${JSON.stringify(body)} → ${response.status} ${await response.text()}`);
  return json<EntryBody>(response);
}

async function rejected(body: unknown): Promise<{ path: string; message: string }[]> {
  const response = await addEntry(app, key, logId, body);
  expect(response.status).toBe(400);
  const error = await errorOf(response);
  expect(error.code).toBe("VALIDATION_FAILED");
  return (error.details ?? []) as { path: string; message: string }[];
}

describe("entry fields (spec 2.2)", () => {
  test("a full entry is saved and returned with id and recordedAt", async () => {
    const full = {
      severity: 7,
      symptoms: ["fever", "Dry cough"],
      temperature: 38.4,
      temperatureUnit: "C",
      activityImpact: "limited",
      note: "Woke up at night.",
    };
    const entry = await accepted(full);
    expect(entry).toMatchObject(full);
    expect(entry.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Date.parse(entry.recordedAt) - Date.now())).toBeLessThan(60_000);
  });

  test("omitted observations are null in the response; an omitted symptoms list is []", async () => {
    expect(await accepted({ severity: 0 })).toMatchObject({
      severity: 0,
      symptoms: [],
      temperature: null,
      temperatureUnit: null,
      activityImpact: null,
      note: null,
    });
  });

  test("severity: 0 and 10 accepted; -1, 11, 5.5 and strings are 400", async () => {
    expect((await accepted({ severity: 0 })).severity).toBe(0);
    expect((await accepted({ severity: 10 })).severity).toBe(10);
    for (const severity of [-1, 11, 5.5, "5", null]) {
      expect((await rejected({ severity }))[0]?.path).toBe("/severity");
    }
  });

  test("symptoms: 16 accepted, 17 rejected; 60 characters accepted, 61 rejected; blank rejected", async () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => `symptom ${i}`);
    expect((await accepted({ symptoms: sixteen })).symptoms).toEqual(sixteen);
    await rejected({ symptoms: [...sixteen, "one more"] });
    expect((await accepted({ symptoms: ["s".repeat(60)] })).symptoms).toEqual(["s".repeat(60)]);
    await rejected({ symptoms: ["s".repeat(61)] });
    await rejected({ symptoms: [""] });
    await rejected({ symptoms: ["   "] });
    await rejected({ symptoms: "fever" });
  });

  test("symptoms: trimmed, duplicates removed ignoring case (first spelling kept), free text allowed", async () => {
    const entry = await accepted({ symptoms: ["Fever", " fever ", "FEVER", "headache", "felt dizzy after lunch"] });
    expect(entry.symptoms).toEqual(["Fever", "headache", "felt dizzy after lunch"]);
  });

  test("temperature: stored to one decimal place, half away from zero", async () => {
    expect((await accepted({ temperature: 38.25, temperatureUnit: "C" })).temperature).toBe(38.3);
    expect((await accepted({ temperature: 38.24, temperatureUnit: "C" })).temperature).toBe(38.2);
    expect((await accepted({ temperature: 101.06, temperatureUnit: "F" })).temperature).toBe(101.1);
    expect((await accepted({ temperature: 37, temperatureUnit: "C" })).temperature).toBe(37);
    expect((await accepted({ temperature: 0.05, temperatureUnit: "C" })).temperature).toBe(0.1);
    const [stored] =
      await deps.sql`select temperature::text as t from tracker_entries where tracker_id = ${logId} and temperature = 38.3`;
    expect(stored?.t).toBe("38.3");
  });

  test("temperature: zero, negative, rounding to zero and above 200 are 400", async () => {
    for (const temperature of [0, -1, 0.04, 200.1]) {
      expect((await rejected({ temperature, temperatureUnit: "C" }))[0]?.path).toBe("/temperature");
    }
  });

  test("temperature and temperatureUnit come together: either alone is 400", async () => {
    expect((await rejected({ temperature: 38.5 }))[0]?.path).toBe("/temperatureUnit");
    expect((await rejected({ temperatureUnit: "C", severity: 3 }))[0]?.path).toBe("/temperature");
    await rejected({ temperature: 38.5, temperatureUnit: "K" });
  });

  test("activityImpact: the three values; others 400", async () => {
    for (const activityImpact of ["normal", "limited", "unable"]) {
      expect((await accepted({ activityImpact })).activityImpact).toBe(activityImpact);
    }
    await rejected({ activityImpact: "bedridden" });
  });

  test("note: 1,200 characters accepted, 1,201 rejected; trimmed", async () => {
    expect((await accepted({ note: "n".repeat(1200) })).note).toHaveLength(1200);
    await rejected({ note: "n".repeat(1201) });
    expect((await accepted({ note: "  better today  " })).note).toBe("better today");
  });

  test("an entry without any observation is 400", async () => {
    for (const body of [{}, { symptoms: [] }, { note: "" }, { note: "   " }]) {
      expect((await rejected(body))[0]?.message).toContain("at least one observation");
    }
  });

  test("unknown properties, and server fields sent by the client, are 400", async () => {
    for (const extra of [{ mood: "ok" }, { id: Bun.randomUUIDv7() }, { recordedAt: new Date().toISOString() }]) {
      await rejected({ severity: 3, ...extra });
    }
  });

  test("a body that is not JSON is 400 INVALID_JSON", async () => {
    const response = await call(app, `/api/v1/health/trackers/${logId}/entries`, {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      rawBody: "{severity: 3",
    });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe("INVALID_JSON");
  });

  test("without consent adding an entry is 403 CONSENT_REQUIRED", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    await deps.sql`delete from health_profiles where account_id = ${account.accountId}`;
    const response = await addEntry(app, account.apiKey, log.id, { severity: 1 });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
  });
});

describe("each log keeps its newest 180 entries", () => {
  test("sequentially: the 181st insert removes the oldest", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    for (let i = 1; i <= 181; i++) {
      expect((await addEntry(app, account.apiKey, log.id, { note: `entry ${i}` })).status).toBe(201);
    }
    const body = await json<TrackerBody>(await call(app, `/api/v1/health/trackers/${log.id}`, { key: account.apiKey }));
    expect(body.entryCount).toBe(180);
    expect(body.entries).toHaveLength(180);
    expect(body.entries[0]?.note).toBe("entry 181");
    expect(body.entries.at(-1)?.note).toBe("entry 2");
  });

  test("concurrently: after 300 concurrent inserts exactly 180 remain, and they are the newest", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    const responses = await Promise.all(
      Array.from({ length: 300 }, (_, i) => addEntry(app, account.apiKey, log.id, { note: `entry ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(300).fill(201));
    const acknowledged = new Set((await Promise.all(responses.map((r) => json<EntryBody>(r)))).map((e) => e.id));
    const rows = await deps.sql<{ id: string; seq: string }[]>`
      select id, seq from tracker_entries where tracker_id = ${log.id} order by seq`;
    expect(rows).toHaveLength(180);
    // The survivors are the last 180 in insertion (lock) order: sequence numbers 121..300.
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 180 }, (_, i) => 121 + i));
    for (const row of rows) expect(acknowledged.has(row.id)).toBe(true);
    const body = await json<TrackerBody>(await call(app, `/api/v1/health/trackers/${log.id}`, { key: account.apiKey }));
    expect(body.entries.map((e) => e.id)).toEqual(rows.map((r) => r.id).toReversed());
  });
});
