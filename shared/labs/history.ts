import type { Ctx } from "../context/ctx";
import { AppError, invalidRequest } from "../core/errors";
import { fromPostgres as db } from "../core/unavailable";
import { type Analyte, convertValue, findAnalyte, ucumUnit } from "./analytes";
import { requireLabConsentToRead } from "./panels";
import { type AnalyteRow, listAnalyteResults } from "./repository";
import { type AnalyteHistory, LOINC } from "./schemas";

const LOINC_CODE = new RegExp(LOINC);

/** Whether two printed units name the same unit (`mg/dl` and `mg/dL`). */
function sameUnit(a: string, b: string): boolean {
  return a === b || (ucumUnit(a) ?? a) === (ucumUnit(b) ?? b);
}

/** Converted values keep four significant digits (or every integer digit): more is noise. */
function rounded(value: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const digits = Math.max(4, Math.floor(Math.log10(Math.abs(value))) + 1);
  return Number(value.toPrecision(Math.min(digits, 21)));
}

/** A result's value in `target` when it is already there or a conversion is known; else as stored. */
export function inUnit(
  row: Pick<AnalyteRow, "result">,
  analyte: Analyte | undefined,
  target: string | null,
): { value: number | null; unit: string | null } {
  const { value, unit } = row.result;
  if (value === null || unit === null || target === null) return { value, unit };
  if (sameUnit(unit, target)) return { value, unit: target };
  // Without a listed analyte only unit algebra applies (mg/dL ↔ g/L), never a molar mass.
  const converted = convertValue(analyte, value, unit, target);
  return converted === undefined ? { value, unit } : { value: rounded(converted), unit: target };
}

/** The unit history values are shown in: the one asked for, the analyte's own, else the latest result's. */
function targetUnit(asked: string | undefined, analyte: Analyte | undefined, rows: AnalyteRow[]): string | null {
  if (asked !== undefined) {
    if (analyte && convertValue(analyte, 1, analyte.unit, asked) === undefined) {
      const message = `${analyte.name} cannot be converted to ${asked} (its unit is ${analyte.unit})`;
      throw invalidRequest([{ in: "query", path: "/unit", message }]);
    }
    return asked;
  }
  if (analyte?.unit) return analyte.unit;
  return rows.findLast((row) => row.result.unit !== null)?.result.unit ?? null;
}

/**
 * One analyte's results across the caller's panels, oldest first, by name, synonym or LOINC code.
 * Values are converted to one unit where a conversion is known; the others keep their own unit.
 * A name that is neither a known analyte nor in any panel is 404.
 */
export async function analyteHistory(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { name: string; unit?: string },
): Promise<AnalyteHistory> {
  await requireLabConsentToRead(ctx.sql, ctx.accountId);
  const asked = input.name.trim();
  const analyte = findAnalyte(asked);
  const codes = analyte?.code ? [analyte.code] : LOINC_CODE.test(asked) ? [asked] : [];
  const names = (analyte ? [analyte.name, ...analyte.synonyms] : [asked]).map((name) => name.toLowerCase());
  const rows = await db(listAnalyteResults(ctx.sql, ctx.accountId, { codes, names }));
  const latest = rows.at(-1)?.result;
  if (!analyte && !latest)
    throw new AppError("NOT_FOUND", `No lab results for ${asked}, and it is not a known analyte.`);
  const unit = targetUnit(input.unit?.trim() || undefined, analyte, rows);
  return {
    analyte: {
      name: analyte?.name ?? latest?.name ?? asked,
      code: analyte?.code ?? latest?.code ?? codes[0] ?? null,
      unit,
    },
    points: rows.map((row) => ({
      collectedAt: row.collectedAt,
      ...inUnit(row, analyte, unit),
      flag: row.result.flag,
      panelId: row.panelId,
    })),
  };
}
