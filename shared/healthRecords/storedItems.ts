import type { RecordLabResult } from "../labs/recordPanels";
import type { ItemKind } from "./repository";
import type { ImportedRecord } from "./schemas";

/** The record's conditions, medications, allergies and immunizations as rows to store, in file order. */
export function recordItems(record: ImportedRecord): { kind: ItemKind; item: object }[] {
  return [
    ...record.conditions.map((item) => ({ kind: "condition" as const, item })),
    ...record.medications.map((item) => ({ kind: "medication" as const, item })),
    ...record.allergies.map((item) => ({ kind: "allergy" as const, item })),
    ...record.immunizations.map((item) => ({ kind: "immunization" as const, item })),
  ];
}

/** A record's date as an instant; a date alone is midnight UTC. Unreadable → undefined. */
function instantOf(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const date = new Date(/^\d{4}(-\d\d){0,2}$/.test(text) ? `${text.padEnd(10, "-01").slice(0, 10)}T00:00:00Z` : text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The record's lab results as the lab panels take them; one without a date is dated `fallback`. */
export function recordLabResults(record: ImportedRecord, fallback: Date): RecordLabResult[] {
  return record.labResults.map((result) => ({
    collectedAt: instantOf(result.effective) ?? fallback,
    name: result.name,
    loinc: result.loinc ?? null,
    value: result.value ?? null,
    valueText: result.valueText ?? null,
    unit: result.unit ?? null,
    referenceRange: {
      low: result.referenceRange?.low ?? null,
      high: result.referenceRange?.high ?? null,
      text: result.referenceRange?.text ?? null,
    },
    flag: result.flag ?? null,
  }));
}
