import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { addEntry, createTracker, healthAccount, type TrackerBody } from "../../helpers/health";
import { call, createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

let deps: Deps;
let app: TestApp;

beforeAll(async () => {
  deps = await testDeps();
  app = createApp(deps);
});

const create = (key: string, body: unknown) => call(app, "/api/v1/health/trackers", { method: "POST", key, body });
const list = (key: string, query = "") => call(app, `/api/v1/health/trackers${query}`, { key });
const patch = (key: string, id: string, body: unknown) =>
  call(app, `/api/v1/health/trackers/${id}`, { method: "PATCH", key, body });

interface ListBody {
  consentGiven: boolean;
  trackers: TrackerBody[];
  next_cursor: string | null;
}

/** Follows next_cursor from the first page to the last, returning every page. */
async function allPages(key: string, limit: number): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const response = await list(key, query);
    expect(response.status).toBe(200);
    const page: ListBody = await json<ListBody>(response);
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor);
  return pages;
}

describe("creating a log", () => {
  test("returns 201 with the log: active, timestamps, no entries; the title is trimmed", async () => {
    const account = await healthAccount(deps, app);
    const response = await create(account.apiKey, { title: "  Flu, November  ", kind: "acute" });
    expect(response.status).toBe(201);
    const log = await json<TrackerBody>(response);
    expect(log).toMatchObject({ title: "Flu, November", kind: "acute", status: "active", entries: [], entryCount: 0 });
    expect(log.id).toMatch(/^[0-9a-f-]{36}$/);
    for (const field of ["startedAt", "createdAt", "updatedAt"])
      expect(Number.isNaN(Date.parse(log[field] as string))).toBe(false);
    expect(log.resolvedAt).toBeNull();
  });

  test("every kind is accepted; titles of 1 and 80 characters are accepted", async () => {
    const account = await healthAccount(deps, app);
    for (const kind of ["acute", "pregnancy", "custom"]) {
      expect((await create(account.apiKey, { title: "x", kind })).status).toBe(201);
    }
    expect((await create(account.apiKey, { title: "t".repeat(80), kind: "custom" })).status).toBe(201);
  });

  test("invalid bodies are 400 with details", async () => {
    const account = await healthAccount(deps, app);
    for (const body of [
      { title: "t".repeat(81), kind: "acute" },
      { title: "", kind: "acute" },
      { title: "    ", kind: "acute" },
      { kind: "acute" },
      { title: "Flu" },
      { title: "Flu", kind: "chronic" },
      { title: "Flu", kind: "acute", status: "resolved" },
      { title: "Flu", kind: "acute", id: "0190aaaa-0000-7000-8000-000000000000" },
      { title: 42, kind: "acute" },
    ]) {
      const response = await create(account.apiKey, body);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.details?.length).toBeGreaterThan(0);
    }
  });

  test("without consent it is 403 CONSENT_REQUIRED and nothing is created", async () => {
    const account = await healthAccount(deps, app, { consent: false });
    const response = await create(account.apiKey, { title: "Flu", kind: "acute" });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("CONSENT_REQUIRED");
    const [{ n }] =
      (await deps.sql`select count(*)::int as n from trackers where account_id = ${account.accountId}`) as unknown as [
        { n: number },
      ];
    expect(n).toBe(0);
  });
});

describe("listing logs", () => {
  test("newest first; default page of 20; next_cursor null on the last page", async () => {
    const account = await healthAccount(deps, app);
    const made: string[] = [];
    for (let i = 0; i < 23; i++) made.push((await createTracker(app, account.apiKey, `log ${i}`)).id);
    const first = await json<ListBody>(await list(account.apiKey));
    expect(first.consentGiven).toBe(true);
    expect(first.trackers.map((t) => t.id)).toEqual(made.toReversed().slice(0, 20));
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json<ListBody>(await list(account.apiKey, `?cursor=${first.next_cursor}`));
    expect(second.trackers.map((t) => t.id)).toEqual(made.toReversed().slice(20));
    expect(second.next_cursor).toBeNull();
  });

  test("limit boundaries: 1 and 100 are accepted, 0, 101 and non-integers are 400", async () => {
    const account = await healthAccount(deps, app);
    await createTracker(app, account.apiKey);
    for (const limit of ["1", "100"]) expect((await list(account.apiKey, `?limit=${limit}`)).status).toBe(200);
    for (const limit of ["0", "101", "2.5", "ten", "-1"]) {
      const response = await list(account.apiKey, `?limit=${limit}`);
      expect(response.status).toBe(400);
      await errorOf(response);
    }
  });

  test("a cursor this API did not issue is 400", async () => {
    const account = await healthAccount(deps, app);
    for (const cursor of ["garbage", Buffer.from("not-a-uuid").toString("base64url")]) {
      const response = await list(account.apiKey, `?cursor=${cursor}`);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).details?.[0]).toMatchObject({ in: "query", path: "/cursor" });
    }
  });

  test("following next_cursor visits every log exactly once while logs are created and deleted", async () => {
    const account = await healthAccount(deps, app);
    const before: string[] = [];
    for (let i = 0; i < 25; i++) before.push((await createTracker(app, account.apiKey, `before ${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    const deleted = new Set<string>();
    do {
      const query: string = `?limit=4${cursor ? `&cursor=${cursor}` : ""}`;
      const page: ListBody = await json<ListBody>(await list(account.apiKey, query));
      seen.push(...page.trackers.map((t) => t.id));
      cursor = page.next_cursor;
      // Meanwhile: new logs arrive, and a log not yet visited is deleted.
      await Promise.all([createTracker(app, account.apiKey, `during ${round}`), createTracker(app, account.apiKey)]);
      const notYetSeen = before.find((id) => !seen.includes(id) && !deleted.has(id));
      if (notYetSeen && round % 2 === 0) {
        deleted.add(notYetSeen);
        expect(
          (await call(app, `/api/v1/health/trackers/${notYetSeen}`, { method: "DELETE", key: account.apiKey })).status,
        ).toBe(200);
      }
      round += 1;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(before.toReversed().filter((id) => !deleted.has(id)));
  });

  test("list items carry their 5 newest entries and the entry count", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    for (let i = 0; i < 7; i++) expect((await addEntry(app, account.apiKey, log.id, { severity: i })).status).toBe(201);
    const [item] = (await json<ListBody>(await list(account.apiKey))).trackers;
    expect(item?.entryCount).toBe(7);
    expect(item?.entries.map((e) => e.severity)).toEqual([6, 5, 4, 3, 2]);
  });

  test("without consent the list is empty (and the logs are still there after consent returns)", async () => {
    const account = await createTestAccount(deps, "plus");
    const response = await list(account.apiKey);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ consentGiven: false, trackers: [], next_cursor: null });
  });

  test("pages hold only the caller's logs", async () => {
    const one = await healthAccount(deps, app);
    const two = await healthAccount(deps, app);
    const mine = await createTracker(app, one.apiKey);
    await createTracker(app, two.apiKey);
    const pages = await allPages(one.apiKey, 100);
    expect(pages.flatMap((p) => p.trackers.map((t) => t.id))).toEqual([mine.id]);
  });
});

describe("one log", () => {
  test("GET returns the log with all entries, newest first; needs consent", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    for (const severity of [1, 2, 3]) await addEntry(app, account.apiKey, log.id, { severity });
    const response = await call(app, `/api/v1/health/trackers/${log.id}`, { key: account.apiKey });
    expect(response.status).toBe(200);
    const body = await json<TrackerBody>(response);
    expect(body.entries.map((e) => e.severity)).toEqual([3, 2, 1]);
    expect(body.entryCount).toBe(3);

    await call(app, "/api/v1/health/profile?confirm=delete", { method: "DELETE", key: account.apiKey });
    const noConsent = await call(app, `/api/v1/health/trackers/${log.id}`, { key: account.apiKey });
    expect(noConsent.status).toBe(403);
    expect((await errorOf(noConsent)).code).toBe("CONSENT_REQUIRED");
  });

  test("DELETE is permanent, needs no consent, and a second DELETE is 404", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    await addEntry(app, account.apiKey, log.id, { note: "day one" });
    // Withdraw consent without deleting: only possible through the database, as a later consent change would.
    await deps.sql`delete from health_profiles where account_id = ${account.accountId}`;
    const response = await call(app, `/api/v1/health/trackers/${log.id}`, { method: "DELETE", key: account.apiKey });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ deleted: true });
    const [{ n }] =
      (await deps.sql`select count(*)::int as n from tracker_entries where tracker_id = ${log.id}`) as unknown as [
        { n: number },
      ];
    expect(n).toBe(0);
    const again = await call(app, `/api/v1/health/trackers/${log.id}`, { method: "DELETE", key: account.apiKey });
    expect(again.status).toBe(404);
  });
});

describe("status and title changes (PATCH)", () => {
  test("resolve stamps resolvedAt, reopen clears it, archive and unarchive", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    const resolved = await json<TrackerBody>(await patch(account.apiKey, log.id, { status: "resolved" }));
    expect(resolved.status).toBe("resolved");
    expect(resolved.resolvedAt).toEqual(expect.any(String));
    const archived = await json<TrackerBody>(await patch(account.apiKey, log.id, { status: "archived" }));
    expect(archived).toMatchObject({ status: "archived", resolvedAt: resolved.resolvedAt });
    const reopened = await json<TrackerBody>(
      await patch(account.apiKey, log.id, { status: "active", title: " Flu (relapse) " }),
    );
    expect(reopened).toMatchObject({ status: "active", resolvedAt: null, title: "Flu (relapse)" });
  });

  test("archived → resolved is 409 and changes nothing; same status is a no-op", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    expect((await patch(account.apiKey, log.id, { status: "archived" })).status).toBe(200);
    const response = await patch(account.apiKey, log.id, { status: "resolved" });
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe("CONFLICT");
    const same = await patch(account.apiKey, log.id, { status: "archived" });
    expect(same.status).toBe(200);
    expect((await json<TrackerBody>(same)).status).toBe("archived");
  });

  test("a resolved or archived log takes no entries (409) until reopened", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    await patch(account.apiKey, log.id, { status: "resolved" });
    const refused = await addEntry(app, account.apiKey, log.id, { severity: 2 });
    expect(refused.status).toBe(409);
    await patch(account.apiKey, log.id, { status: "active" });
    expect((await addEntry(app, account.apiKey, log.id, { severity: 2 })).status).toBe(201);
  });

  test("invalid patches are 400: empty body, unknown status, unknown property, long title", async () => {
    const account = await healthAccount(deps, app);
    const log = await createTracker(app, account.apiKey);
    for (const body of [{}, { status: "closed" }, { kind: "custom" }, { title: "t".repeat(81) }, { title: " " }]) {
      const response = await patch(account.apiKey, log.id, body);
      expect(response.status).toBe(400);
      await errorOf(response);
    }
  });
});

describe("ownership: another account's log, an unknown id and a malformed id are all 404 on every route", () => {
  const routes: [string, (id: string) => [string, string, unknown?]][] = [
    ["GET", (id) => ["GET", `/api/v1/health/trackers/${id}`]],
    ["PATCH", (id) => ["PATCH", `/api/v1/health/trackers/${id}`, { title: "mine now" }]],
    ["DELETE", (id) => ["DELETE", `/api/v1/health/trackers/${id}`]],
    ["POST entries", (id) => ["POST", `/api/v1/health/trackers/${id}/entries`, { severity: 4 }]],
    ["export", (id) => ["GET", `/api/v1/health/trackers/${id}/export?format=csv`]],
    ["summary", (id) => ["GET", `/api/v1/health/trackers/${id}/summary`]],
  ];

  test.each(routes)("%s", async (_name, route) => {
    const owner = await healthAccount(deps, app);
    const intruder = await healthAccount(deps, app);
    const log = await createTracker(app, owner.apiKey);
    const unknown = Bun.randomUUIDv7();
    for (const id of [log.id, unknown, "not-a-uuid", "1"]) {
      const [method, path, body] = route(id);
      const response = await call(app, path, { method, key: intruder.apiKey, body });
      expect(response.status).toBe(404);
      const error = await errorOf(response);
      expect(error.code).toBe("NOT_FOUND");
      expect(error.message).not.toContain(owner.accountId);
    }
    // The owner's log is untouched.
    const mine = await json<TrackerBody>(await call(app, `/api/v1/health/trackers/${log.id}`, { key: owner.apiKey }));
    expect(mine).toMatchObject({ title: log.title, entryCount: 0 });
  });
});

describe("plan gate", () => {
  test("a free account gets 403 PLAN_REQUIRED on every tracker route", async () => {
    const account = await createTestAccount(deps, "free");
    const id = Bun.randomUUIDv7();
    for (const [method, path] of [
      ["GET", "/api/v1/health/trackers"],
      ["POST", "/api/v1/health/trackers"],
      ["GET", `/api/v1/health/trackers/${id}`],
      ["PATCH", `/api/v1/health/trackers/${id}`],
      ["DELETE", `/api/v1/health/trackers/${id}`],
      ["POST", `/api/v1/health/trackers/${id}/entries`],
      ["GET", `/api/v1/health/trackers/${id}/export`],
      ["GET", `/api/v1/health/trackers/${id}/summary`],
    ]) {
      const response = await call(app, path as string, {
        method,
        key: account.apiKey,
        body: method === "GET" || method === "DELETE" ? undefined : {},
      });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("PLAN_REQUIRED");
    }
  });
});
