import type { Ctx, SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { redisKeys } from "../core/redis";
import { fromPostgres as db, unavailable } from "../core/unavailable";
import { enqueue } from "../jobs/queue";
import { uploadKey } from "../storage/storage";
import { findUpload, findUploadById, insertUpload, moveUpload, type UploadRow } from "./repository";
import type { PresignInput, UploadInfo } from "./schemas";
import { signUpload, verifyUpload } from "./signing";
import { isUploadType, UPLOAD_TYPES } from "./types";

/** The caller's uploads: presign, complete and status act for `ctx.accountId`. */
export type UploadsCtx = Pick<Ctx, "sql" | "env" | "uploads" | "queues" | "accountId">;

/** The signed PUT has no account: its signature, not a key or a session, authorizes it. */
export type SignedUploadCtx = Pick<SystemCtx, "sql" | "env" | "uploads" | "redis">;

export interface PresignUploadInput extends PresignInput {
  /** Where this API is reached, for the URL of a locally stored upload. */
  baseUrl: string;
}

export interface SignedPut {
  fileId: string;
  expires: number;
  signature: string;
  contentType: string;
  contentLength: number | undefined;
  body: () => Promise<Uint8Array>;
}

const notFound = (id: string) => new AppError("NOT_FOUND", `No upload with id ${id}.`);
const forbidden = (why: string) => new AppError("FORBIDDEN", `This upload URL is not valid: ${why}.`);
const usedUp = () => new AppError("CONFLICT", "These bytes were already uploaded; the URL is single-use.");

/** Long enough for a slow client to send UPLOAD_MAX_BYTES; a crashed holder frees the URL after it. */
const UPLOAD_PUT_LOCK_MS = 300_000;

function info(row: UploadRow): UploadInfo {
  const { accountId: _account, ...rest } = row;
  return rest;
}

/**
 * Starts an upload: a pending row and where to PUT its bytes. Local storage: the API's own URL,
 * signed over file id, size, type and expiry. S3: the bucket's presigned URL.
 */
export async function presignUpload(ctx: UploadsCtx, input: PresignUploadInput) {
  checkDeclared(ctx.env, input);
  const fileId = Bun.randomUUIDv7();
  const expires = Math.floor(Date.now() / 1000) + ctx.env.UPLOAD_URL_TTL_SECONDS;
  await db(
    insertUpload(ctx.sql, {
      id: fileId,
      accountId: ctx.accountId,
      filename: input.filename.trim(),
      contentType: input.contentType,
      size: input.size,
      expiresAt: new Date(expires * 1000),
    }),
  );
  return {
    fileId,
    uploadUrl: uploadUrl(ctx, input, fileId, expires),
    method: "PUT" as const,
    headers: { "content-type": input.contentType },
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** Only types we process (415 otherwise), and no more than UPLOAD_MAX_BYTES (413). */
function checkDeclared(env: UploadsCtx["env"], input: PresignInput): void {
  if (!isUploadType(input.contentType)) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Uploads may be ${Object.keys(UPLOAD_TYPES).join(", ")}; got ${input.contentType}.`,
    );
  }
  if (input.size > env.UPLOAD_MAX_BYTES) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `Uploads are at most ${env.UPLOAD_MAX_BYTES} bytes; this one is ${input.size}.`,
    );
  }
}

function uploadUrl(
  ctx: Pick<UploadsCtx, "env" | "uploads" | "accountId">,
  input: PresignUploadInput,
  fileId: string,
  expires: number,
): string {
  const storage = ctx.uploads.storage;
  if (storage.presignPut) {
    return storage.presignPut(uploadKey(ctx.accountId, fileId), {
      contentType: input.contentType,
      expiresInSeconds: ctx.env.UPLOAD_URL_TTL_SECONDS,
    });
  }
  const signature = signUpload(ctx.uploads.secret, {
    fileId,
    size: input.size,
    contentType: input.contentType,
    expires,
  });
  return `${input.baseUrl}/api/v1/uploads/${fileId}/content?expires=${expires}&signature=${signature}`;
}

/**
 * The signed PUT (local storage). Refused with 403 unless the signature, expiry and content type
 * all match; 413 when the body is larger than declared; single-use (409 once bytes are in).
 * Nothing is stored unless every check passed.
 */
export async function receiveSignedUpload(
  ctx: SignedUploadCtx,
  input: SignedPut,
): Promise<{ fileId: string; status: "uploaded" }> {
  const { fileId } = input;
  const row = isUuid(fileId) ? await db(findUploadById(ctx.sql, fileId)) : undefined;
  if (!row) throw forbidden("unknown file");
  const signed = { fileId, size: row.size, contentType: row.contentType, expires: input.expires };
  if (!verifyUpload(ctx.uploads.secret, signed, input.signature)) throw forbidden("bad signature");
  if (input.expires * 1000 < Date.now()) throw forbidden("expired");
  if (input.contentType !== row.contentType) throw forbidden(`the Content-Type must be ${row.contentType}`);
  if (row.status !== "pending") throw usedUp();
  // One PUT at a time per URL: two racing PUTs would both pass the check above, and the later write
  // would replace the bytes of the one answered 200. The status is read again under the lock.
  const lock = redisKeys(ctx.env.REDIS_PREFIX).uploadPut(fileId);
  const locked = await ctx.redis.set(lock, "1", "PX", UPLOAD_PUT_LOCK_MS, "NX").catch(unavailable("Redis"));
  if (locked !== "OK")
    throw new AppError("CONFLICT", "Another upload to this URL is in progress; the URL is single-use.");
  try {
    if ((await db(findUploadById(ctx.sql, fileId)))?.status !== "pending") throw usedUp();
    return await storeSignedUpload(ctx, row, input);
  } finally {
    await ctx.redis.del(lock).catch(() => {});
  }
}

async function storeSignedUpload(
  ctx: Pick<SignedUploadCtx, "sql" | "uploads">,
  row: UploadRow,
  input: Pick<SignedPut, "contentLength" | "body">,
): Promise<{ fileId: string; status: "uploaded" }> {
  const tooLarge = () =>
    new AppError("PAYLOAD_TOO_LARGE", `This upload was declared as ${row.size} bytes; send exactly that many.`);
  if (input.contentLength !== undefined && input.contentLength > row.size) throw tooLarge();
  const bytes = await input.body();
  if (bytes.length > row.size) throw tooLarge();
  if (bytes.length < row.size) {
    throw new AppError("BAD_REQUEST", `This upload was declared as ${row.size} bytes; ${bytes.length} arrived.`);
  }
  await ctx.uploads.storage.write(uploadKey(row.accountId, row.fileId), bytes).catch(unavailable("Upload storage"));
  if (!(await db(moveUpload(ctx.sql, row.fileId, ["pending"], "uploaded")))) throw usedUp();
  return { fileId: row.fileId, status: "uploaded" };
}

/**
 * Finishes an upload and starts its processing; before the bytes arrived it is 409. Repeating it
 * is harmless: it answers the current status and queues nothing twice.
 */
export async function completeUpload(ctx: UploadsCtx, input: { fileId: string }) {
  const { fileId } = input;
  const row = isUuid(fileId) ? await db(findUpload(ctx.sql, ctx.accountId, fileId)) : undefined;
  if (!row) throw notFound(fileId);
  if (row.status === "pending" && ctx.uploads.storage.kind === "s3") {
    // With S3 the bytes went straight to the bucket: check they are there, in full.
    const size = await ctx.uploads.storage.size(uploadKey(ctx.accountId, fileId)).catch(unavailable("Upload storage"));
    if (size === row.size) await db(moveUpload(ctx.sql, fileId, ["pending"], "uploaded"));
  }
  const current = await db(findUpload(ctx.sql, ctx.accountId, fileId));
  if (!current || current.status === "pending") {
    throw new AppError("CONFLICT", "The file has not been uploaded yet: PUT its bytes to the uploadUrl first.");
  }
  if (current.status === "uploaded" && (await db(moveUpload(ctx.sql, fileId, ["uploaded"], "processing")))) {
    await enqueue(ctx.queues, "uploads.process", { fileId }, { jobId: `upload-${fileId}` }).catch(unavailable("Redis"));
    return { fileId, status: "processing" as const };
  }
  return { fileId, status: current.status };
}

export async function getUpload(
  ctx: Pick<UploadsCtx, "sql" | "accountId">,
  input: { fileId: string },
): Promise<UploadInfo> {
  const row = isUuid(input.fileId) ? await db(findUpload(ctx.sql, ctx.accountId, input.fileId)) : undefined;
  if (!row) throw notFound(input.fileId);
  return info(row);
}
