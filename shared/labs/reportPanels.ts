import { resolveAnalyte } from "./analytes";
import { splitByCollection } from "./extract/collections";
import { type ParsedLabReport, type ParsedResult, parseLabReport } from "./extract/index";
import { LAB_LIMITS, type LabResult } from "./schemas";

/** A panel read from a report, before it has an id and an account. */
export interface PanelDraft {
  collectedAt: Date;
  lab: string | null;
  pages: number[];
  results: LabResult[];
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/**
 * A printed local date or date-time as UTC: reports print no zone, and guessing the lab's would
 * shift a date-only collection across midnight for half the world. Impossible dates (31 Feb) → null.
 */
export function collectedAtUtc(printed: string): Date | null {
  const iso = printed.length === 10 ? `${printed}T00:00:00` : printed;
  const date = new Date(`${iso}Z`);
  return Number.isNaN(date.getTime()) || !date.toISOString().startsWith(printed.slice(0, 10)) ? null : date;
}

/** One parsed result as stored: its LOINC code resolved from the name and unit, strings held to the API's limits. */
export function labResultOf(parsed: Omit<ParsedResult, "page">): LabResult {
  const unit = parsed.unit === null ? null : clip(parsed.unit, LAB_LIMITS.unit);
  const text = parsed.referenceRange.text;
  return {
    name: clip(parsed.name, LAB_LIMITS.name),
    code: resolveAnalyte(parsed.name, parsed.unit)?.code ?? null,
    value: parsed.value,
    valueText: clip(parsed.valueText, LAB_LIMITS.valueText),
    unit,
    referenceRange: { ...parsed.referenceRange, text: text === null ? null : clip(text, LAB_LIMITS.rangeText) },
    flag: parsed.flag,
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Reads one part of a report (its page texts, empty where it has none); the parser by default. */
export type ReadReport = (pages: string[]) => Promise<ParsedLabReport>;

const byParser: ReadReport = async (pages) => parseLabReport(pages);

/**
 * The panels a report's page texts hold: one per collection date it prints (results before the
 * first date belong to it), at most 200 results each. Without a printed date, `uploadedAt`.
 */
export async function panelsFromReport(
  pages: string[],
  uploadedAt: Date,
  read: ReadReport = byParser,
): Promise<PanelDraft[]> {
  const parts = (await Promise.all(splitByCollection(pages).map(read))).filter((part) => part.results.length > 0);
  const lab = parts.find((part) => part.lab !== null)?.lab ?? null;
  return parts.flatMap((part) => {
    const printed = part.collectedAt === null ? null : collectedAtUtc(part.collectedAt);
    return chunks(part.results, LAB_LIMITS.results).map((results) => ({
      collectedAt: printed ?? uploadedAt,
      lab: lab === null ? null : clip(lab, LAB_LIMITS.lab),
      pages: [...new Set(results.map((result) => result.page))].sort((a, b) => a - b),
      results: results.map(({ page: _page, ...result }) => labResultOf(result)),
    }));
  });
}

/** Why a readable PDF gave no panel, for the NO_LAB_RESULTS message. */
export function whyNoResults(pages: string[]): string {
  if (pages.every((page) => page.trim() === "")) {
    return "the PDF has no text layer (a scanned or photographed report); only PDFs with selectable text can be read";
  }
  return "no line of its text reads as a test result with a value (a test name, a value, and a unit or reference range)";
}
