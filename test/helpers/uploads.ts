import { PDFDocument, StandardFonts } from "pdf-lib";
import type { UploadInfo } from "../../shared/uploads/schemas";
import { call, json, type TestApp } from "./http";

export interface Presigned {
  fileId: string;
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

/** A real PDF with one page per line of text. */
export async function makePdf(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const line of lines) doc.addPage().drawText(line, { x: 50, y: 700, font, size: 12 });
  return doc.save();
}

export function presign(app: TestApp, key: string, body: Record<string, unknown>): Promise<Response> {
  return call(app, "/api/v1/uploads/presign", { method: "POST", key, body: { scope: "health", ...body } });
}

/** PUTs bytes to a presigned URL through the app (the URL's host is the public one; only the path matters). */
export function put(app: TestApp, url: string, bytes: Uint8Array, contentType: string) {
  const { pathname, search } = new URL(url);
  return app.handle(
    new Request(`http://localhost${pathname}${search}`, {
      method: "PUT",
      headers: { "content-type": contentType, "content-length": String(bytes.length) },
      body: bytes,
    }),
  );
}

/** Presign, PUT, complete, then follow the status until processing has finished (needs an uploads worker). */
export async function uploadFile(
  app: TestApp,
  key: string,
  file: { bytes: Uint8Array; contentType: string; filename: string; declared?: string },
): Promise<UploadInfo> {
  const declared = file.declared ?? file.contentType;
  const ticket = await json<Presigned>(
    await presign(app, key, { filename: file.filename, contentType: declared, size: file.bytes.length }),
  );
  const stored = await put(app, ticket.uploadUrl, file.bytes, declared);
  if (stored.status !== 200) throw new Error(`upload PUT failed: ${stored.status}`);
  await call(app, "/api/v1/uploads/complete", { method: "POST", key, body: { fileId: ticket.fileId } });
  for (;;) {
    const info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key }));
    if (info.status !== "processing") return info;
    await Bun.sleep(20);
  }
}
