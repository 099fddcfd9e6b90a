import type { RecordImport } from "../../shared/healthRecords/schemas";
import { call, json, type TestApp } from "./http";
import { uploadFile } from "./uploads";

export interface RecordFile {
  /** Default `application/fhir+json`. */
  contentType?: string;
  /** Default `record.json`. */
  filename?: string;
}

/** Uploads a record's text and waits until processing made it ready (needs an uploads worker); its file id. */
export async function uploadRecord(app: TestApp, apiKey: string, text: string, file: RecordFile = {}): Promise<string> {
  const upload = await uploadFile(app, apiKey, {
    bytes: new TextEncoder().encode(text),
    contentType: file.contentType ?? "application/fhir+json",
    filename: file.filename ?? "record.json",
  });
  if (upload.status !== "ready") throw new Error(`record upload ${upload.status}: ${upload.failureReason}`);
  return upload.fileId;
}

/** Uploads a record and imports it through the API, which must answer 201; the import's summary. */
export async function importRecord(
  app: TestApp,
  apiKey: string,
  text: string,
  file: RecordFile & { proceed?: boolean } = {},
): Promise<RecordImport> {
  const fileId = await uploadRecord(app, apiKey, text, file);
  const response = await call(app, "/api/v1/health/records/import", {
    method: "POST",
    key: apiKey,
    body: { file_id: fileId, ...(file.proceed ? { proceed: true } : {}) },
  });
  if (response.status !== 201) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  return json<RecordImport>(response);
}
