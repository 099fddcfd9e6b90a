import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../core/env";
import { localStorage, s3Storage, type UploadStorage } from "./storage";

export interface UploadConfig {
  storage: UploadStorage;
  /** HMAC secret of the API's own upload URLs. */
  secret: string;
}

/**
 * The upload storage and signing secret of this deployment. Without UPLOAD_SIGNING_SECRET the
 * secret is generated once into DATA_DIR (API processes on one machine share it; several machines
 * must set the variable).
 */
export function uploadConfig(env: Env): UploadConfig {
  const storage = env.S3_BUCKET
    ? s3Storage({
        bucket: env.S3_BUCKET,
        ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
        ...(env.S3_REGION ? { region: env.S3_REGION } : {}),
        ...(env.S3_ACCESS_KEY_ID ? { accessKeyId: env.S3_ACCESS_KEY_ID } : {}),
        ...(env.S3_SECRET_ACCESS_KEY ? { secretAccessKey: env.S3_SECRET_ACCESS_KEY } : {}),
      })
    : localStorage(join(env.DATA_DIR, "uploads"));
  return { storage, secret: env.UPLOAD_SIGNING_SECRET ?? generatedSecret(env.DATA_DIR) };
}

function generatedSecret(dataDir: string): string {
  const file = join(dataDir, "upload-signing-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    // Another process (the API and the workers start together) wrote it first: use theirs.
    if ((error as { code?: string }).code === "EEXIST") return readFileSync(file, "utf8").trim();
    throw error;
  }
}
