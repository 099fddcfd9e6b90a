import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { S3Client } from "bun";

/**
 * Where uploaded bytes live, behind one interface. Local: files under DATA_DIR/uploads, written by
 * the API's own signed PUT route. S3-compatible (AWS S3, R2, MinIO): Bun's built-in S3 client,
 * clients PUT straight to a presigned URL.
 */
export interface UploadStorage {
  kind: "local" | "s3";
  write(key: string, bytes: Uint8Array): Promise<void>;
  /** The stored bytes, or undefined when nothing is stored under the key. */
  read(key: string): Promise<Uint8Array | undefined>;
  size(key: string): Promise<number | undefined>;
  remove(key: string): Promise<void>;
  /** S3 only: a presigned PUT URL bound to the content type. */
  presignPut?(key: string, options: { contentType: string; expiresInSeconds: number }): string;
}

export function localStorage(root: string): UploadStorage {
  const path = (key: string) => {
    if (key.includes("..")) throw new Error(`Bad storage key ${key}`);
    return join(root, key);
  };
  return {
    kind: "local",
    async write(key, bytes) {
      await mkdir(dirname(path(key)), { recursive: true });
      await Bun.write(path(key), bytes);
    },
    async read(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : undefined;
    },
    async size(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? file.size : undefined;
    },
    async remove(key) {
      await rm(path(key), { force: true });
    },
  };
}

export function s3Storage(options: {
  bucket: string;
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}): UploadStorage {
  const client = new S3Client(options);
  return {
    kind: "s3",
    async write(key, bytes) {
      await client.write(key, bytes);
    },
    async read(key) {
      const file = client.file(key);
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : undefined;
    },
    async size(key) {
      const file = client.file(key);
      return (await file.exists()) ? (await file.stat()).size : undefined;
    },
    async remove(key) {
      await client.delete(key);
    },
    presignPut(key, { contentType, expiresInSeconds }) {
      return client.presign(key, { method: "PUT", expiresIn: expiresInSeconds, type: contentType });
    },
  };
}

export function uploadKey(accountId: string, fileId: string, variant = "original"): string {
  return `uploads/${accountId}/${fileId}/${variant}`;
}
