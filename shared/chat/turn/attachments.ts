import type { UIMessage } from "ai";
import type { Ctx } from "../../context/ctx";
import type { Deps } from "../../context/deps";
import { AppError } from "../../core/errors";
import { isUuid } from "../../core/formats";
import { unavailable } from "../../core/unavailable";
import { parseLabReport } from "../../labs/extract";
import { uploadKey } from "../../storage/storage";
import { rangeText } from "../../tools/labTrend";
import { accountUploads, processedOriginal, type UploadRow, uploadPages } from "../../uploads/reads";

/** Attachments on both sides of the queue: what the API checks, and what the model is sent. */

type Part = UIMessage["parts"][number];

/**
 * Attachments must be the caller's own ready `health` uploads: unknown or another account's → 404,
 * not ready yet or failed → 409 (the spec's "attachment conflict"). PDFs and text files reach the
 * model as their extracted text (any model reads that); images need a model that reads images.
 */
export async function checkAttachments(
  ctx: Ctx,
  ids: readonly string[],
): Promise<{ modalities: "image"[]; textCharacters: number }> {
  if (ids.length === 0) return { modalities: [], textCharacters: 0 };
  const valid = ids.filter(isUuid);
  const rows = valid.length ? await accountUploads(ctx, ctx.accountId, valid).catch(unavailable("PostgreSQL")) : [];
  const byId = new Map(rows.map((row) => [row.fileId, row]));
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) throw new AppError("NOT_FOUND", `No uploaded file with id ${id}.`);
    if (row.status !== "ready") {
      const why =
        row.status === "failed" ? `failed processing: ${row.failureReason}` : `is ${row.status}, not ready yet`;
      throw new AppError("CONFLICT", `Attachment ${id} ${why}.`);
    }
  }
  // An image costs about width × height / 750 tokens (the size models bill for; the model copy when there is one).
  const imageTokens = rows.reduce((sum, row) => {
    const size = row.details.modelCopy ?? row.details;
    return sum + (size.width && size.height ? Math.ceil((size.width * size.height) / 750) : 0);
  }, 0);
  return {
    modalities: rows.some((row) => row.contentType.startsWith("image/")) ? ["image"] : [],
    textCharacters: rows.reduce((sum, row) => sum + (row.details.textCharacters ?? 0), 0) + imageTokens * 4,
  };
}

/**
 * What an attachment adds to its message: images as a file part (the downscaled copy when there
 * is one; routing already made sure the model reads images), PDFs as a file part for a model that
 * reads PDFs and as their extracted text otherwise, text files as their text. A PDF whose text the
 * lab-report parser reads results from gets a table of them first, for any model.
 */
export async function attachmentParts(
  deps: Deps,
  accountId: string,
  ids: readonly string[],
  readsPdf: boolean,
): Promise<Part[]> {
  if (ids.length === 0) return [];
  const rows = await accountUploads(deps, accountId, [...ids]);
  const parts: Part[] = [];
  for (const row of rows) {
    if (row.status !== "ready") continue;
    const added = row.contentType.startsWith("image/")
      ? await imageParts(deps, row)
      : await documentParts(deps, row, readsPdf);
    parts.push(...added);
  }
  return parts;
}

async function imageParts(deps: Deps, row: UploadRow): Promise<Part[]> {
  const bytes = row.details.modelCopy
    ? await deps.uploads.storage.read(uploadKey(row.accountId, row.fileId, "model.jpg"))
    : await processedOriginal(deps, row);
  if (!bytes) return [];
  const mediaType = row.details.modelCopy ? "image/jpeg" : row.contentType;
  return [{ type: "file", mediaType, filename: row.filename, url: dataUrl(mediaType, bytes) }];
}

async function documentParts(deps: Deps, row: UploadRow, readsPdf: boolean): Promise<Part[]> {
  const pdf = row.contentType === "application/pdf";
  const pages = await uploadPages(deps, row.fileId);
  const parts: Part[] = [];
  const labs = pdf ? labResultsText(row.filename, pages) : undefined;
  if (labs) parts.push({ type: "text", text: labs });
  const bytes = pdf && readsPdf ? await processedOriginal(deps, row) : undefined;
  if (bytes) {
    parts.push({
      type: "file",
      mediaType: row.contentType,
      filename: row.filename,
      url: dataUrl(row.contentType, bytes),
    });
    return parts;
  }
  // PDF pages keep their numbers, so an answer can cite the page it quotes.
  const paged = pages.length > 1 || pdf;
  const body = pages.map((text, i) => (paged ? `[page ${i + 1}]\n${text}` : text)).join("\n\n");
  parts.push({ type: "text", text: `Attached file "${row.filename}" (${row.contentType}):\n${body}` });
  return parts;
}

/** Table cells hold no bars or line breaks. */
const cell = (text: string | number | null) =>
  text === null
    ? "—"
    : String(text)
        .replace(/[|\n]+/g, " ")
        .trim();

/**
 * The results the deterministic lab-report parser reads from a PDF's page texts, as a compact
 * table (test, value, unit, reference range, flag, page); undefined when it reads none. The
 * offline model reads this format back (`parseLabTable` in shared/llm/offline/labTable.ts).
 */
export function labResultsText(filename: string, pages: string[]): string | undefined {
  const report = parseLabReport(pages);
  if (report.results.length === 0) return undefined;
  const about = [report.lab && `lab: ${cell(report.lab)}`, report.collectedAt && `collected: ${report.collectedAt}`];
  const rows = report.results.map((r) =>
    [r.name, r.valueText, r.unit, rangeText(r.referenceRange), r.flag, r.page].map(cell).join(" | "),
  );
  return [
    `Lab results read from the attached file "${cell(filename)}" by the service's report parser (${report.results.length}; check them against the file):`,
    ...(about.some(Boolean) ? [about.filter(Boolean).join("; ")] : []),
    "| test | value | unit | reference range | flag | page |",
    "|---|---|---|---|---|---|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

function dataUrl(mediaType: string, bytes: Uint8Array): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
}
