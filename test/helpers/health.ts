import type { Deps } from "../../shared/context/deps";
import type { PlanId } from "../../shared/core/plans";
import { call, createTestAccount, json, type TestAccount, type TestApp } from "./http";

/** A health-plan account, with consent given (a saved profile) unless asked otherwise. */
export async function healthAccount(
  deps: Deps,
  app: TestApp,
  options: { consent?: boolean; plan?: PlanId } = {},
): Promise<TestAccount> {
  const account = await createTestAccount(deps, options.plan ?? "go");
  if (options.consent !== false) {
    const saved = await call(app, "/api/v1/health/profile", {
      method: "POST",
      key: account.apiKey,
      body: { consentGiven: true, conditions: [], medications: [] },
    });
    if (saved.status !== 200) throw new Error(`profile save failed: ${saved.status}`);
  }
  return account;
}

export interface TrackerBody {
  id: string;
  title: string;
  kind: string;
  status: string;
  entryCount: number;
  entries: EntryBody[];
  [key: string]: unknown;
}

export interface EntryBody {
  id: string;
  severity: number | null;
  symptoms: string[];
  temperature: number | null;
  temperatureUnit: string | null;
  activityImpact: string | null;
  note: string | null;
  recordedAt: string;
}

export async function createTracker(app: TestApp, key: string, title = "Flu, November", kind = "acute") {
  const response = await call(app, "/api/v1/health/trackers", { method: "POST", key, body: { title, kind } });
  if (response.status !== 201) throw new Error(`tracker create failed: ${response.status} ${await response.text()}`);
  return json<TrackerBody>(response);
}

export function addEntry(app: TestApp, key: string, trackerId: string, body: unknown): Promise<Response> {
  return call(app, `/api/v1/health/trackers/${trackerId}/entries`, { method: "POST", key, body });
}
