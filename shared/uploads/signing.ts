import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Upload URLs served by the API itself are signed with HMAC-SHA256 over everything the upload
 * must match: file id, size, content type and expiry. Changing any of them breaks the signature.
 */
export interface SignedUpload {
  fileId: string;
  size: number;
  contentType: string;
  expires: number;
}

function mac(secret: string, upload: SignedUpload): Buffer {
  return createHmac("sha256", secret)
    .update(`${upload.fileId}\n${upload.size}\n${upload.contentType}\n${upload.expires}`)
    .digest();
}

export function signUpload(secret: string, upload: SignedUpload): string {
  return mac(secret, upload).toString("base64url");
}

export function verifyUpload(secret: string, upload: SignedUpload, signature: string): boolean {
  const expected = mac(secret, upload);
  const given = Buffer.from(signature, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
