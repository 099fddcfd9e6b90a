import type { Ctx } from "../context/ctx";
import { summarizeLog } from "../health/logReports";
import { listLogs } from "../health/logs";
import type { HealthLog } from "../health/schemas";
import type { HealthLogSummary } from "../health/summary";
import { listRecordImports } from "../healthRecords/imports";
import type { HealthProfile, StoredImmunization } from "../healthRecords/schemas";
import { getHealthProfile } from "../healthRecords/sections";
import { allPanels } from "../labs/export";
import { labTrends } from "./labTrends";
import type { LogDigest, SharedRecord } from "./schemas";

/** The newest logs the page summarizes; it says when there are older ones. */
const SHARED_LOGS = 12;

type OwnerCtx = Pick<Ctx, "sql" | "accountId">;

const folded = (text: string) => text.trim().toLowerCase();

function conditions(profile: HealthProfile): SharedRecord["conditions"] {
  const typed = profile.conditions.map((name) => ({ name, source: "typed" as const, onset: null }));
  const seen = new Set(profile.conditions.map(folded));
  const imported = profile.importedConditions
    .filter((item) => !seen.has(folded(item.name)))
    .map((item) => ({ name: item.name, source: "imported" as const, onset: item.onset ?? null }));
  return [...typed, ...imported];
}

function medications(profile: HealthProfile): SharedRecord["medications"] {
  const typed = profile.medications.map((name) => ({ name, source: "typed" as const, status: null }));
  const seen = new Set(profile.medications.map(folded));
  const imported = profile.importedMedications
    .filter((item) => !seen.has(folded(item.name)))
    .map((item) => ({ name: item.name, source: "imported" as const, status: item.status ?? null }));
  return [...typed, ...imported];
}

/** One line per vaccine (its first code, else its name): the newest dose and how many there are. */
function immunizations(items: StoredImmunization[]): SharedRecord["immunizations"] {
  const byVaccine = new Map<string, SharedRecord["immunizations"][number]>();
  // Newest first already (recordSections), so the first dose seen of a vaccine is its latest.
  for (const item of items) {
    const code = item.codes[0];
    const key = code ? `${code.system ?? ""}|${code.code}` : folded(item.vaccine);
    const seen = byVaccine.get(key);
    if (seen) seen.doses += 1;
    else byVaccine.set(key, { vaccine: item.vaccine, latestDate: item.date ?? null, doses: 1 });
  }
  return [...byVaccine.values()];
}

/** The slope of the daily average severity in words; ±0.1 points a day is steady. */
function severityTrend(perDay: number | null): LogDigest["severity"]["trend"] {
  if (perDay === null) return null;
  if (perDay > 0.1) return "rising";
  return perDay < -0.1 ? "falling" : "steady";
}

function digest(log: HealthLog, summary: HealthLogSummary): LogDigest {
  return {
    title: log.title,
    kind: log.kind,
    status: log.status,
    entries: summary.entryCount,
    firstRecordedAt: summary.firstRecordedAt,
    lastRecordedAt: summary.lastRecordedAt,
    severity: {
      min: summary.severity.min,
      max: summary.severity.max,
      trend: severityTrend(summary.severity.trendPerDay),
    },
    temperature: { unit: summary.temperature.unit, min: summary.temperature.min, max: summary.temperature.max },
    symptoms: summary.symptoms.slice(0, 5).map(({ symptom, count }) => ({ symptom, count })),
  };
}

/** The newest logs, each summarized in the temperature unit its newest entries use. */
async function logDigests(ctx: OwnerCtx): Promise<{ logs: LogDigest[]; more: boolean }> {
  const page = await listLogs(ctx, { limit: SHARED_LOGS });
  const logs = await Promise.all(
    page.trackers.map(async (log) => {
      const unit = log.entries.find((entry) => entry.temperatureUnit)?.temperatureUnit ?? "C";
      return digest(log, await summarizeLog(ctx, { id: log.id, unit }));
    }),
  );
  return { logs, more: page.next_cursor !== null };
}

/**
 * What a share link's page shows, read as the owner (`ctx.accountId`): conditions and medications
 * (typed, and imported active ones), allergies, immunizations (latest per vaccine), lab tests with
 * their trends, and the newest symptom logs' summaries. No account identifier is part of it. The
 * caller has checked the link, the plan and consent.
 */
export async function sharedRecord(ctx: OwnerCtx, link: { expiresAt: string }): Promise<SharedRecord> {
  const [profile, imports, panels, logs] = await Promise.all([
    getHealthProfile(ctx),
    listRecordImports(ctx),
    allPanels(ctx),
    logDigests(ctx),
  ]);
  const named = imports.imports.find((item) => item.patient.name || item.patient.birthDate)?.patient;
  const labs = labTrends(panels);
  return {
    patient: { name: named?.name ?? null, birthDate: named?.birthDate ?? null },
    expiresAt: link.expiresAt,
    generatedAt: new Date().toISOString(),
    conditions: conditions(profile),
    medications: medications(profile),
    allergies: profile.allergies.map((item) => ({
      substance: item.substance,
      reactions: item.reactions,
      criticality: item.criticality ?? null,
    })),
    immunizations: immunizations(profile.immunizations),
    labs: labs.trends,
    logs: logs.logs,
    more: { labs: labs.more, logs: logs.more },
  };
}
