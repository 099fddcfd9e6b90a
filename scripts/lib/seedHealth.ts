import type { Ctx } from "../../shared/context/ctx";
import { databaseUrl, type Env } from "../../shared/core/env";
import { createSql } from "../../shared/db/sql";
import { addPastEntries, createLog } from "../../shared/health/logs";
import { saveProfile } from "../../shared/health/profile";
import type { EntryInput } from "../../shared/health/schemas";
import { createPanel } from "../../shared/labs/panels";

const DAY = 86_400_000;
const daysAgo = (days: number, hour = 8) => new Date(Date.now() - days * DAY + (hour - 12) * 3_600_000).toISOString();

/**
 * Three weeks of a flu: fever the first days, then a cough that lingers. Made up for the demo
 * (no one's record); the shape of what the Logs page charts: severity, temperature, symptoms.
 */
const FLU: [daysAgo: number, EntryInput][] = [
  [
    21,
    {
      severity: 4,
      symptoms: ["sore throat", "fatigue"],
      temperature: 37.6,
      temperatureUnit: "C",
      activityImpact: "normal",
    },
  ],
  [
    20,
    {
      severity: 7,
      symptoms: ["fever", "headache", "muscle aches"],
      temperature: 38.9,
      temperatureUnit: "C",
      activityImpact: "unable",
    },
  ],
  [
    19,
    {
      severity: 8,
      symptoms: ["fever", "chills", "cough"],
      temperature: 39.2,
      temperatureUnit: "C",
      activityImpact: "unable",
      note: "Stayed in bed.",
    },
  ],
  [
    18,
    {
      severity: 7,
      symptoms: ["fever", "cough", "fatigue"],
      temperature: 38.6,
      temperatureUnit: "C",
      activityImpact: "unable",
    },
  ],
  [
    17,
    { severity: 5, symptoms: ["cough", "fatigue"], temperature: 37.9, temperatureUnit: "C", activityImpact: "limited" },
  ],
  [
    15,
    { severity: 4, symptoms: ["cough", "fatigue"], temperature: 37.2, temperatureUnit: "C", activityImpact: "limited" },
  ],
  [13, { severity: 3, symptoms: ["cough"], temperature: 36.9, temperatureUnit: "C", activityImpact: "limited" }],
  [11, { severity: 3, symptoms: ["cough", "wheezing"], activityImpact: "limited", note: "Used the inhaler twice." }],
  [8, { severity: 2, symptoms: ["cough"], activityImpact: "normal" }],
  [5, { severity: 2, symptoms: ["cough"], activityImpact: "normal" }],
  [2, { severity: 1, symptoms: ["cough"], activityImpact: "normal", note: "Only in the mornings now." }],
];

/**
 * Two routine panels, 150 and 30 days ago, of the same tests: the Labs page draws each test's trend
 * from them. Each row: name, unit, reference range, then the value in each panel.
 */
const PANEL_DAYS_AGO = [150, 30];
const TESTS: [string, string, { low?: number; high?: number; text?: string }, number, number][] = [
  ["HbA1c", "%", { text: "4.0-5.6" }, 6.1, 5.8],
  ["Glucose", "mmol/L", { low: 3.9, high: 5.5 }, 6.2, 5.4],
  ["Total cholesterol", "mmol/L", { high: 5.2 }, 5.9, 5.1],
  ["LDL cholesterol", "mmol/L", { high: 3.0 }, 3.8, 3.1],
  ["HDL cholesterol", "mmol/L", { low: 1.0 }, 1.2, 1.3],
];

/**
 * Gives a new demo account a health profile with consent, a health log with three weeks of
 * entries and two lab panels, through the same verbs as the API, so the website's Profile, Logs
 * and Labs pages have something to show at the first sign-in. Run once, when the account is
 * created: what the user changes or deletes afterwards stays changed.
 */
export async function seedDemoHealth(env: Env, accountId: string): Promise<void> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const ctx: Pick<Ctx, "sql" | "accountId"> = { sql, accountId };
  try {
    await saveProfile(ctx, {
      consentGiven: true,
      conditions: ["Asthma"],
      medications: ["albuterol", "cetirizine"],
    });
    const log = await createLog(ctx, { title: "Flu, this season", kind: "acute" });
    await addPastEntries(ctx, {
      logId: log.id,
      entries: FLU.map(([days, entry]) => ({ recordedAt: daysAgo(days), entry })),
    });
    for (const [panel, days] of PANEL_DAYS_AGO.entries()) {
      const results = TESTS.map(([name, unit, referenceRange, ...values]) => ({
        name,
        unit,
        referenceRange,
        value: values[panel] as number,
      }));
      await createPanel(ctx, { collectedAt: daysAgo(days, 9), lab: "City Lab", results });
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
