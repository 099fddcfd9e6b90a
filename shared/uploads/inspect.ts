import { extractText, getDocumentProxy } from "unpdf";
import type { UploadDetails } from "./schemas";
import { MODEL_IMAGE_MAX_SIDE, sniffType, UPLOAD_TYPES, type UploadContentType } from "./types";

/** What processing learned from a file's bytes, or why the file is refused. */
export type Inspection =
  | { ok: true; sha256: string; details: UploadDetails; pages: string[]; modelCopy?: Uint8Array }
  | { ok: false; reason: string };

/**
 * Checks and reads one uploaded file, without network: the bytes must be the declared size and
 * type (by magic bytes, not by name); PDFs give their text per page, images their dimensions and,
 * when large, a downscaled JPEG copy for models with image size limits; text files their text.
 */
export async function inspectUpload(
  bytes: Uint8Array,
  declared: { contentType: string; size: number },
): Promise<Inspection> {
  if (bytes.length !== declared.size) {
    return { ok: false, reason: `The stored file is ${bytes.length} bytes, not the ${declared.size} declared.` };
  }
  const sniffed = sniffType(bytes);
  // Text has no magic bytes: any declared text type (JSON, XML) is right for valid UTF-8.
  const actual =
    sniffed === "text/plain" && UPLOAD_TYPES[declared.contentType as UploadContentType] === "text"
      ? declared.contentType
      : sniffed;
  if (actual !== declared.contentType) {
    return {
      ok: false,
      reason: `The bytes are not ${declared.contentType}${actual ? ` (they look like ${actual})` : ""}.`,
    };
  }
  const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  const kind = UPLOAD_TYPES[actual as UploadContentType];
  if (kind === "text") {
    const text = new TextDecoder().decode(bytes);
    return { ok: true, sha256, details: { textCharacters: text.length }, pages: [text] };
  }
  if (kind === "pdf") {
    try {
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { totalPages, text } = await extractText(pdf, { mergePages: false });
      const pages = (text as string[]).map((page) => page.trim());
      return {
        ok: true,
        sha256,
        details: { pages: totalPages, textCharacters: pages.reduce((n, page) => n + page.length, 0) },
        pages,
      };
    } catch (error) {
      return { ok: false, reason: `Not a readable PDF: ${error instanceof Error ? error.message : "unknown error"}.` };
    }
  }
  try {
    const { width, height } = await new Bun.Image(bytes).metadata();
    if (Math.max(width, height) <= MODEL_IMAGE_MAX_SIDE)
      return { ok: true, sha256, details: { width, height }, pages: [] };
    const scale = MODEL_IMAGE_MAX_SIDE / Math.max(width, height);
    const copy = await new Bun.Image(bytes)
      .resize(Math.round(width * scale), Math.round(height * scale))
      .jpeg({ quality: 85 })
      .bytes();
    const meta = await new Bun.Image(copy).metadata();
    return {
      ok: true,
      sha256,
      details: { width, height, modelCopy: { width: meta.width, height: meta.height, contentType: "image/jpeg" } },
      pages: [],
      modelCopy: copy,
    };
  } catch (error) {
    return { ok: false, reason: `Not a readable image: ${error instanceof Error ? error.message : "unknown error"}.` };
  }
}
