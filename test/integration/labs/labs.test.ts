import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { findAnalyte } from "../../../shared/labs/analytes";
import type { AnalyteHistory, LabPanel, LabPanelList } from "../../../shared/labs/schemas";
import { createTracker, healthAccount } from "../../helpers/health";
import { call, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { webCall, webUser } from "../../helpers/website";

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

const LABS = "/api/v1/health/labs";
const create = (key: string, body: unknown) => call(app, LABS, { method: "POST", key, body });

async function createPanel(key: string, body: Record<string, unknown>): Promise<LabPanel> {
  const response = await create(key, body);
  if (response.status !== 201) throw new Error(`panel create failed: ${response.status} ${await response.text()}`);
  return json<LabPanel>(response);
}

const glucose = (value: number, unit: string) => ({ name: "Glucose", value, unit });

async function history(key: string, name: string, query = ""): Promise<AnalyteHistory> {
  const response = await call(app, `${LABS}/analytes/${encodeURIComponent(name)}${query}`, { key });
  expect(response.status).toBe(200);
  return json<AnalyteHistory>(response);
}

describe("entering a panel", () => {
  test("201 with the panel: trimmed, values and printed values filled, flags computed or kept, codes looked up", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const response = await create(apiKey, {
      collectedAt: "2026-03-04T08:15:00+01:00",
      lab: "  City Lab  ",
      results: [
        { name: " Hemoglobin ", value: 11.2, unit: "g/dL", referenceRange: { low: 12, high: 15.5 } },
        { name: "Glucose", valueText: "95", unit: "mg/dL", referenceRange: { text: "70–99" } },
        { name: "LDL cholesterol", value: 180, unit: "mg/dL", referenceRange: { text: "< 130" } },
        { name: "Potassium", value: 4.1, unit: "mmol/L", referenceRange: { low: 3.5, high: 5.1 }, flag: "abnormal" },
        { name: "Urine nitrite", valueText: "positive", flag: "abnormal" },
        { name: "Zz unlisted marker", value: 3, referenceRange: { high: 2 } },
      ],
    });
    expect(response.status).toBe(201);
    const panel = await json<LabPanel>(response);
    expect(panel).toMatchObject({ collectedAt: "2026-03-04T07:15:00.000Z", lab: "City Lab", source: null });
    expect(panel.id).toMatch(/^[0-9a-f-]{36}$/);
    const [hb, glu, ldl, k, nitrite, unlisted] = panel.results;
    expect(hb).toMatchObject({ name: "Hemoglobin", value: 11.2, valueText: "11.2", unit: "g/dL", flag: "low" });
    expect(hb?.referenceRange).toEqual({ low: 12, high: 15.5, text: null });
    expect(glu).toMatchObject({ value: 95, valueText: "95", flag: "normal", referenceRange: { low: 70, high: 99 } });
    expect(ldl).toMatchObject({ flag: "high", referenceRange: { low: null, high: 130, text: "< 130" } });
    expect(k?.flag).toBe("abnormal");
    expect(nitrite).toMatchObject({ value: null, valueText: "positive", unit: null, flag: "abnormal" });
    expect(unlisted).toMatchObject({ code: null, flag: "high" });
    expect(glu?.code).toBe(findAnalyte("Glucose")?.code as string);
    expect(glu?.code).toMatch(/^\d+-\d$/);
    expect(hb?.code).toBe(findAnalyte("Hemoglobin")?.code as string);
  });

  test("a given LOINC code is kept; 200 results are accepted", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const results = Array.from({ length: 200 }, (_, i) => ({ name: `Marker ${i}`, value: i, code: "12345-6" }));
    const panel = await createPanel(apiKey, { collectedAt: "2026-01-01T00:00:00Z", results });
    expect(panel.results).toHaveLength(200);
    expect(panel.results[7]).toMatchObject({ code: "12345-6", value: 7, valueText: "7", flag: null });
  });

  test("invalid bodies are 400 VALIDATION_FAILED with details", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const at = "2026-01-01T00:00:00Z";
    const ok = { name: "Glucose", value: 5 };
    for (const body of [
      { collectedAt: at, results: [] },
      { collectedAt: at, results: Array.from({ length: 201 }, () => ok) },
      { collectedAt: at },
      { results: [ok] },
      { collectedAt: "yesterday", results: [ok] },
      { collectedAt: "2999-01-01T00:00:00Z", results: [ok] },
      { collectedAt: at, results: [{ name: "Glucose" }] },
      { collectedAt: at, results: [{ name: "   ", value: 5 }] },
      { collectedAt: at, results: [{ name: "Glucose", value: "5" }] },
      { collectedAt: at, results: [{ name: "Glucose", value: 1e13 }] },
      { collectedAt: at, results: [{ ...ok, flag: "critical" }] },
      { collectedAt: at, results: [{ ...ok, code: "LOINC" }] },
      { collectedAt: at, results: [{ ...ok, referenceRange: { low: 10, high: 2 } }] },
      { collectedAt: at, results: [{ ...ok, value: null }] },
      { collectedAt: at, results: [{ ...ok, extra: 1 }] },
      { collectedAt: at, lab: "", results: [ok] },
      { collectedAt: at, results: [ok], source: { fileId: crypto.randomUUID(), pages: [1] } },
    ]) {
      const response = await create(apiKey, body);
      expect(response.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.details?.length).toBeGreaterThan(0);
    }
    const missing = await errorOf(await create(apiKey, { collectedAt: at, results: [ok, { name: "Glucose" }] }));
    expect(missing.details).toEqual([{ in: "body", path: "/results/1", message: "Give value, valueText or both" }]);
  });
});

describe("listing, reading and deleting", () => {
  test("newest collectedAt first; the cursor visits every panel once", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const days = ["2026-01-03", "2026-01-01", "2026-01-05", "2026-01-03", "2026-01-02"];
    const created: LabPanel[] = [];
    for (const day of days)
      created.push(await createPanel(apiKey, { collectedAt: `${day}T09:00:00Z`, results: [glucose(90, "mg/dL")] }));
    const seen: LabPanel[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const response = await call(app, `${LABS}${query}`, { key: apiKey });
      expect(response.status).toBe(200);
      const page: LabPanelList = await json<LabPanelList>(response);
      expect(page.consentGiven).toBe(true);
      expect(page.panels.length).toBeLessThanOrEqual(2);
      seen.push(...page.panels);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((panel) => panel.collectedAt.slice(0, 10))).toEqual([...days].sort().reverse());
    expect(new Set(seen.map((panel) => panel.id)).size).toBe(5);
    // Equal collection times: the newer id first.
    expect(seen[1]?.id).toBe(created[3]?.id as string);
    const all = await json<LabPanelList>(await call(app, LABS, { key: apiKey }));
    expect(all.panels).toEqual(seen);
    expect(all.next_cursor).toBeNull();
  });

  test("bad paging is 400", async () => {
    const { apiKey } = await healthAccount(deps, app);
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?limit=1.5",
      "?cursor=bm90LWEtY3Vyc29y",
      `?cursor=${btoa("[1,2]")}`,
    ]) {
      const response = await call(app, `${LABS}${query}`, { key: apiKey });
      expect(response.status, query).toBe(400);
      expect((await errorOf(response)).code).toBe("VALIDATION_FAILED");
    }
  });

  test("GET one panel; DELETE it once (then 404); ids that are not UUIDs are 404", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const panel = await createPanel(apiKey, { collectedAt: "2026-02-01T00:00:00Z", results: [glucose(5, "mmol/L")] });
    const read = await call(app, `${LABS}/${panel.id}`, { key: apiKey });
    expect(read.status).toBe(200);
    expect(await json(read)).toEqual(panel);
    const removed = await call(app, `${LABS}/${panel.id}`, { method: "DELETE", key: apiKey });
    expect(removed.status).toBe(200);
    expect(await json(removed)).toEqual({ deleted: true });
    for (const method of ["GET", "DELETE"]) {
      for (const id of [panel.id, "not-a-uuid"]) {
        const response = await call(app, `${LABS}/${id}`, { method, key: apiKey });
        expect(response.status).toBe(404);
        expect((await errorOf(response)).code).toBe("NOT_FOUND");
      }
    }
  });
});

describe("analyte history", () => {
  test("glucose in mg/dL and mmol/L comes back in one unit, oldest first, by name, synonym case or code", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const later = await createPanel(apiKey, { collectedAt: "2026-02-01T00:00:00Z", results: [glucose(5.5, "mmol/L")] });
    const earlier = await createPanel(apiKey, {
      collectedAt: "2026-01-01T00:00:00Z",
      results: [
        { name: "Hemoglobin", value: 13 },
        { ...glucose(90, "mg/dL"), referenceRange: { low: 70, high: 99 } },
      ],
    });
    await createPanel(apiKey, { collectedAt: "2026-01-15T00:00:00Z", results: [{ name: "Hemoglobin", value: 14 }] });
    const code = findAnalyte("Glucose")?.code as string;

    const inMmol = await history(apiKey, "glucose", "?unit=mmol/L");
    expect(inMmol.analyte).toMatchObject({ code, unit: "mmol/L" });
    expect(inMmol.points.map((point) => [point.panelId, point.unit, point.flag])).toEqual([
      [earlier.id, "mmol/L", "normal"],
      [later.id, "mmol/L", null],
    ]);
    expect(inMmol.points[0]?.value).toBeCloseTo(5.0, 1);
    expect(inMmol.points[1]?.value).toBe(5.5);

    const inMg = await history(apiKey, "GLUCOSE", "?unit=mg/dL");
    expect(inMg.points.map((point) => point.unit)).toEqual(["mg/dL", "mg/dL"]);
    expect(inMg.points[0]?.value).toBe(90);
    expect(inMg.points[1]?.value).toBeCloseTo(99, 0);

    // Without `unit`, the analyte's own unit; by LOINC code the same points.
    const byDefault = await history(apiKey, "Glucose");
    expect(byDefault.analyte.unit).toBe(findAnalyte("Glucose")?.unit ?? null);
    expect(new Set(byDefault.points.map((point) => point.unit))).toEqual(new Set([byDefault.analyte.unit]));
    const byCode = await history(apiKey, code);
    expect(byCode.points).toEqual(byDefault.points);
  });

  test("an unlisted name with results keeps its own unit; unknown and unconvertible are 404 and 400", async () => {
    const { apiKey } = await healthAccount(deps, app);
    const panel = await createPanel(apiKey, {
      collectedAt: "2026-01-01T00:00:00Z",
      results: [{ name: "Zz Custom Factor", value: 7, unit: "U/mL", referenceRange: { high: 5 } }],
    });
    const custom = await history(apiKey, "zz custom factor");
    expect(custom).toEqual({
      analyte: { name: "Zz Custom Factor", code: null, unit: "U/mL" },
      points: [{ collectedAt: "2026-01-01T00:00:00.000Z", value: 7, unit: "U/mL", flag: "high", panelId: panel.id }],
    });
    const none = await call(app, `${LABS}/analytes/${encodeURIComponent("Zz never measured")}`, { key: apiKey });
    expect(none.status).toBe(404);
    expect((await errorOf(none)).code).toBe("NOT_FOUND");
    // A listed analyte with no results yet is an empty history, not a 404.
    expect((await history(apiKey, "Hemoglobin")).points).toEqual([]);
    const bad = await call(app, `${LABS}/analytes/glucose?unit=furlongs`, { key: apiKey });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).details).toEqual([expect.objectContaining({ in: "query", path: "/unit" })]);
  });
});

describe("consent and ownership", () => {
  test("without consent: creating and reading are 403 CONSENT_REQUIRED, the list is empty", async () => {
    const { apiKey } = await healthAccount(deps, app, { consent: false });
    const created = await create(apiKey, { collectedAt: "2026-01-01T00:00:00Z", results: [glucose(90, "mg/dL")] });
    expect(created.status).toBe(403);
    expect((await errorOf(created)).code).toBe("CONSENT_REQUIRED");
    for (const path of [`${LABS}/${crypto.randomUUID()}`, `${LABS}/analytes/glucose`]) {
      const response = await call(app, path, { key: apiKey });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
    }
    expect(await json(await call(app, LABS, { key: apiKey }))).toEqual({
      consentGiven: false,
      panels: [],
      next_cursor: null,
    });
    // Deleting needs no consent: an unknown id is simply not found.
    expect((await call(app, `${LABS}/${crypto.randomUUID()}`, { method: "DELETE", key: apiKey })).status).toBe(404);
  });

  test("another account's panel is 404 to read and delete, and absent from its list and history", async () => {
    const a = await healthAccount(deps, app);
    const b = await healthAccount(deps, app);
    const mine = await createPanel(a.apiKey, { collectedAt: "2026-01-01T00:00:00Z", results: [glucose(90, "mg/dL")] });
    for (const method of ["GET", "DELETE"]) {
      const response = await call(app, `${LABS}/${mine.id}`, { method, key: b.apiKey });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("NOT_FOUND");
    }
    expect((await json<LabPanelList>(await call(app, LABS, { key: b.apiKey }))).panels).toEqual([]);
    expect((await history(b.apiKey, "glucose")).points).toEqual([]);
    expect((await history(a.apiKey, "glucose")).points.map((point) => point.panelId)).toEqual([mine.id]);
    expect((await call(app, `${LABS}/${mine.id}`, { key: a.apiKey })).status).toBe(200);
  });

  test("deleting the profile deletes the account's panels, no one else's", async () => {
    const a = await healthAccount(deps, app);
    const b = await healthAccount(deps, app);
    const body = { collectedAt: "2026-01-01T00:00:00Z", results: [glucose(90, "mg/dL")] };
    await createPanel(a.apiKey, body);
    await createPanel(a.apiKey, body);
    await createTracker(app, a.apiKey, "kept apart");
    const theirs = await createPanel(b.apiKey, body);
    const deleted = await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: a.apiKey });
    expect(await json(deleted)).toEqual({
      deleted: true,
      trackersDeleted: 1,
      labPanelsDeleted: 2,
      recordImportsDeleted: 0,
      shareLinksDeleted: 0,
    });
    const [{ count }] = (await deps.sql`
      select count(*)::int as count from lab_panels where account_id = ${a.accountId}`) as unknown as [
      { count: number },
    ];
    expect(count).toBe(0);
    expect((await call(app, `${LABS}/${theirs.id}`, { key: b.apiKey })).status).toBe(200);
  });
});

describe("the website mirror", () => {
  test("a signed-in go user enters and lists panels under /api/health/labs", async () => {
    const user = await webUser(app, deps, { plan: "go" });
    const consent = { consentGiven: true, conditions: [], medications: [] };
    expect((await webCall(app, user, "/api/health/profile", { method: "POST", body: consent })).status).toBe(200);
    const body = { collectedAt: "2026-01-01T00:00:00Z", results: [glucose(90, "mg/dL")] };
    const created = await webCall(app, user, "/api/health/labs", { method: "POST", body });
    expect(created.status).toBe(201);
    const { id } = await json<LabPanel>(created);
    const list = await json<LabPanelList>(await webCall(app, user, "/api/health/labs"));
    expect(list.panels.map((panel) => panel.id)).toEqual([id]);
  });
});
