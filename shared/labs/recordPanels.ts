import type { Db } from "../db/sql";
import { convertValue, foldName, resolveAnalyte } from "./analytes";
import { insertPanel, listResultsOnDays } from "./repository";
import { flagFor } from "./results";
import { LAB_LIMITS, type LabResult } from "./schemas";

/** A lab result read from an imported health record (FHIR or C-CDA), with when it was collected. */
export interface RecordLabResult {
  collectedAt: Date;
  name: string;
  /** The LOINC code the record gives, kept as is. */
  loinc: string | null;
  value: number | null;
  valueText: string | null;
  unit: string | null;
  referenceRange: { low: number | null; high: number | null; text: string | null };
  flag: LabResult["flag"];
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
const DAY_MS = 86_400_000;
const dayOf = (date: Date | string) => Math.floor(new Date(date).getTime() / DAY_MS);

/**
 * What makes two results the same result: the analyte (by the catalogue, else the code, else the
 * folded name), the UTC day of collection (a PDF prints a date where a record gives a time) and the
 * value (in the analyte's canonical unit when it has one, to 3 significant digits, as reports round; else as text).
 */
export function sameResultKey(result: {
  name: string;
  code: string | null;
  value: number | null;
  valueText: string | null;
  unit: string | null;
  day: number;
}): string {
  const analyte = resolveAnalyte(result.name, result.unit) ?? (result.code ? resolveAnalyte(result.code) : undefined);
  const identity = analyte?.code ?? result.code ?? foldName(result.name);
  let value = result.valueText?.trim().toLowerCase() ?? "";
  if (result.value !== null) {
    const canonical =
      analyte && result.unit ? convertValue(analyte, result.value, result.unit, analyte.unit) : undefined;
    value = `${Number((canonical ?? result.value).toPrecision(3))}${canonical === undefined ? (result.unit ?? "") : ""}`;
  }
  return `${identity}|${result.day}|${value}`;
}

function storedResult(result: RecordLabResult): LabResult {
  const valueText = result.valueText ?? (result.value === null ? "" : String(result.value));
  return {
    name: clip(result.name, LAB_LIMITS.name),
    code: result.loinc ?? resolveAnalyte(result.name, result.unit)?.code ?? null,
    value: result.value,
    valueText: clip(valueText, LAB_LIMITS.valueText),
    unit: result.unit === null ? null : clip(result.unit, LAB_LIMITS.unit),
    referenceRange: {
      ...result.referenceRange,
      text: result.referenceRange.text === null ? null : clip(result.referenceRange.text, LAB_LIMITS.rangeText),
    },
    flag: result.flag ?? flagFor(result.value, result.referenceRange),
  };
}

/**
 * Stores an imported record's lab results as panels, one per collection time (at most 200 results
 * each), tied to the import so undoing it removes them. A result the account already has (the same
 * analyte, day and value, from a PDF report or an earlier import) is left out, and so is a repeat
 * inside the record. Run inside the import's transaction, after its lock.
 */
export async function storeRecordPanels(
  tx: Db,
  input: { accountId: string; importId: string; fileId: string; results: RecordLabResult[] },
): Promise<{ panels: number; alreadyStored: number }> {
  const days = [...new Set(input.results.map((result) => dayOf(result.collectedAt)))];
  const existing = await listResultsOnDays(tx, input.accountId, days);
  const seen = new Set(existing.map((row) => sameResultKey({ ...row.result, day: dayOf(row.collectedAt) })));
  const byTime = new Map<number, LabResult[]>();
  let alreadyStored = 0;
  for (const result of input.results) {
    const stored = storedResult(result);
    const key = sameResultKey({ ...stored, day: dayOf(result.collectedAt) });
    if (seen.has(key)) {
      alreadyStored++;
      continue;
    }
    seen.add(key);
    const time = result.collectedAt.getTime();
    const panel = byTime.get(time);
    if (panel) panel.push(stored);
    else byTime.set(time, [stored]);
  }
  let panels = 0;
  for (const [time, results] of [...byTime].sort(([a], [b]) => a - b)) {
    for (let i = 0; i < results.length; i += LAB_LIMITS.results) {
      await insertPanel(tx, {
        id: Bun.randomUUIDv7(),
        accountId: input.accountId,
        collectedAt: new Date(time),
        lab: null,
        source: { fileId: input.fileId, pages: [] },
        recordImportId: input.importId,
        results: results.slice(i, i + LAB_LIMITS.results),
      });
      panels++;
    }
  }
  return { panels, alreadyStored };
}
