import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { jsonSchema, Output, streamText } from "ai";
import type { Env } from "../core/env";
import type { Logger } from "../core/log";
import { escapeRegExp } from "../core/regex";
import { languageModelFor } from "../llm/languageModels";
import type { ModelEntry } from "../llm/models";
import { readCollectedAt, readLabName } from "./extract/header";
import { normalizeLine, type ParsedLabReport, type ParsedResult, parseLabReport } from "./extract/index";
import { flagFor } from "./results";
import { LabFlagSchema } from "./schemas";

/**
 * A model reading a report instead of the parser. Its answer is trusted only as far as the page
 * text vouches for it: every value, unit and range it returns must be printed on the page it
 * names, else the whole answer is refused and the parser's reading stands.
 */
const Nullable = <S extends ReturnType<typeof T.String> | ReturnType<typeof T.Number>>(schema: S) =>
  T.Union([schema, T.Null()]);
const strict = { additionalProperties: false } as const;

/** The parser's result shape, closed, as structured-output APIs require. */
export const ModelReportSchema = T.Object(
  {
    results: T.Array(
      T.Object(
        {
          name: T.String(),
          valueText: T.String({ description: "The value exactly as printed." }),
          value: Nullable(T.Number()),
          unit: Nullable(T.String()),
          referenceRange: T.Object(
            { low: Nullable(T.Number()), high: Nullable(T.Number()), text: Nullable(T.String()) },
            strict,
          ),
          flag: T.Union([LabFlagSchema, T.Null()]),
          page: T.Integer({ minimum: 1 }),
        },
        strict,
      ),
    ),
  },
  strict,
);

const INSTRUCTIONS = `You read laboratory reports. List every test result printed in the report, in order.
Copy the value (valueText), unit and reference range text exactly as printed: never compute, convert, round or guess.
value is valueText as a number when it is one, else null. flag is low, high or abnormal only when the report prints a flag, else null.
page is the 1-based page the result is printed on. Text that is not a test result (addresses, notes, headings) is not a result.`;

/** Generous: extraction runs on a worker while the request has long since answered 202. */
const MODEL_TIMEOUT_MS = 60_000;

/** Whether `text` is printed on the page as a whole token ("5.2" is not in "15.2", "g/dL" not in "mg/dL"). */
function printed(page: string, text: string): boolean {
  const needle = normalizeLine(text);
  if (!needle) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}.,])${escapeRegExp(needle)}(?![\\p{L}\\p{N}]|[.,]\\p{N})`, "u").test(page);
}

/** A printed number, a decimal comma read as a point ("4,2" → 4.2); NaN when it is not one. */
function decimal(text: string): number {
  return Number(text.trim().replace(/^(-?\d+),(\d+)$/, "$1.$2"));
}

/** The first thing the model returned that its page does not print, or null when all is printed. */
export function unsupportedClaim(results: ParsedResult[], pages: string[]): string | null {
  const flat = pages.map((page) => page.split("\n").map(normalizeLine).join("\n"));
  for (const result of results) {
    const page = flat[result.page - 1];
    if (page === undefined) return `${result.name}: there is no page ${result.page}`;
    const { low, high, text } = result.referenceRange;
    const claims = [result.valueText, result.unit, text].filter((claim): claim is string => claim !== null);
    const missing = claims.find((claim) => !printed(page, claim));
    if (missing !== undefined) return `${result.name}: "${missing}" is not printed on page ${result.page}`;
    if (result.value !== null && result.value !== decimal(result.valueText)) {
      return `${result.name}: ${result.value} is not its printed value`;
    }
    const bounds = (text?.match(/\d+(?:[.,]\d+)?/g) ?? []).map(decimal);
    const bound = [low, high].find((b) => b !== null && !bounds.includes(b));
    if (bound !== undefined) return `${result.name}: the bound ${bound} is not in its printed range`;
  }
  return null;
}

/** A flag the model cannot vouch for is recomputed: from a numeric value and range, as for entered panels. */
function settled(result: ParsedResult): ParsedResult {
  const computed = flagFor(result.value, result.referenceRange);
  return computed === null ? result : { ...result, flag: computed };
}

/** The report's results as the model reads them, or null when it fails or claims anything unprinted. */
async function modelResults(
  ctx: { env: Env; log: Logger },
  model: ModelEntry,
  pages: string[],
): Promise<ParsedResult[] | null> {
  const prompt = pages.map((text, i) => `--- Page ${i + 1} ---\n${text}`).join("\n\n");
  try {
    const result = streamText({
      model: languageModelFor(model, ctx.env),
      system: INSTRUCTIONS,
      prompt,
      output: Output.object({ schema: jsonSchema(ModelReportSchema as never) }),
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
    });
    const answer: unknown = await result.output;
    if (!Value.Check(ModelReportSchema, answer)) throw new Error("the answer does not match the schema");
    const refused = answer.results.length === 0 ? "no results" : unsupportedClaim(answer.results, pages);
    if (refused === null) return answer.results.map(settled);
    ctx.log.warn("lab report: model reading refused", { model: model.id, reason: refused });
  } catch (error) {
    ctx.log.warn("lab report: model reading failed", { model: model.id, error });
  }
  return null;
}

/**
 * Reads one part of a report with the model, falling back to the parser's reading. The lab and
 * date come from the report's header lines either way: the model is asked for results only.
 */
export async function readWithModel(
  ctx: { env: Env; log: Logger },
  model: ModelEntry,
  pages: string[],
): Promise<ParsedLabReport> {
  const results = await modelResults(ctx, model, pages);
  if (!results) return parseLabReport(pages);
  const lines = pages.map((page) => page.split("\n").map(normalizeLine).filter(Boolean));
  const collectedAt = lines.flat().reduce<string | null>((found, line) => found ?? readCollectedAt(line), null);
  const firstPage = lines.find((page) => page.length > 0) ?? [];
  return { lab: readLabName(firstPage), collectedAt, results };
}
