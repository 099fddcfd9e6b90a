import type { Ctx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { getProfile, saveProfile } from "../health/profile";
import type { ProfileInput } from "../health/schemas";
import { listItems, type StoredItemRow } from "./repository";
import type {
  Coding,
  HealthProfile,
  RecordSections,
  StoredAllergy,
  StoredCondition,
  StoredImmunization,
  StoredMedication,
} from "./schemas";

export const NO_SECTIONS: RecordSections = {
  allergies: [],
  importedConditions: [],
  importedMedications: [],
  immunizations: [],
};

/** Statuses that mean an allergy no longer holds, or was recorded in error. */
const NOT_AN_ALLERGY = new Set(["inactive", "resolved", "entered-in-error"]);
const NOT_GIVEN = new Set(["not-done", "entered-in-error"]);

/** One concept however many imports carry it: its first code, else its folded name. */
export function conceptKey(name: string, codes: Coding[]): string {
  const code = codes[0];
  return code ? `${code.system ?? ""}|${code.code}` : name.trim().toLowerCase();
}

function stored<T>(row: StoredItemRow): T {
  return { id: row.id, importId: row.importId, ...row.item } as T;
}

/** The first of each concept (rows come newest import first). */
export function unique<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The profile's sections that imports fill: active conditions and medications, allergies that
 * still hold, and immunizations given (newest first). A concept in several imports is listed once,
 * from the newest.
 */
export async function recordSections(ctx: Pick<Ctx, "sql" | "accountId">): Promise<RecordSections> {
  const rows = await db(listItems(ctx.sql, ctx.accountId, ["condition", "medication", "allergy", "immunization"]));
  const of = <T>(kind: StoredItemRow["kind"]) => rows.filter((row) => row.kind === kind).map((row) => stored<T>(row));
  const conditions = of<StoredCondition>("condition").filter((item) => item.active);
  const medications = of<StoredMedication>("medication").filter((item) => item.active);
  const allergies = of<StoredAllergy>("allergy").filter((item) => !NOT_AN_ALLERGY.has(item.clinicalStatus ?? ""));
  const immunizations = of<StoredImmunization>("immunization")
    .filter((item) => !NOT_GIVEN.has(item.status ?? ""))
    .sort((a, b) => (b.date ?? "").localeCompare(a.date ?? ""));
  return {
    allergies: unique(allergies, (item) => conceptKey(item.substance, item.codes)),
    importedConditions: unique(conditions, (item) => conceptKey(item.name, item.codes)),
    importedMedications: unique(medications, (item) => conceptKey(item.name, item.codes)),
    // Each dose is its own event: the same vaccine on two dates is two immunizations.
    immunizations: unique(immunizations, (item) => `${conceptKey(item.vaccine, item.codes)}@${item.date ?? ""}`),
  };
}

/** The health profile with the sections imports fill (empty without consent). */
export async function getHealthProfile(ctx: Pick<Ctx, "sql" | "accountId">): Promise<HealthProfile> {
  const profile = await getProfile(ctx);
  return { ...profile, ...(profile.consentGiven ? await recordSections(ctx) : NO_SECTIONS) };
}

/** Saves the typed profile (giving consent) and answers it with the imported sections. */
export async function saveHealthProfile(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: ProfileInput,
): Promise<HealthProfile> {
  const profile = await saveProfile(ctx, input);
  return { ...profile, ...(await recordSections(ctx)) };
}
