/** What may be uploaded: the declared type decides processing, and the bytes must agree with it. */
export const UPLOAD_TYPES = {
  "application/pdf": "pdf",
  "image/png": "image",
  "image/jpeg": "image",
  "image/webp": "image",
  "text/plain": "text",
  // Health records to import (a FHIR Bundle, a C-CDA document): text, readable in chat as well.
  "application/json": "text",
  "application/fhir+json": "text",
  "application/xml": "text",
  "text/xml": "text",
} as const;
export type UploadContentType = keyof typeof UPLOAD_TYPES;
export type UploadKind = (typeof UPLOAD_TYPES)[UploadContentType];

export function isUploadType(value: string): value is UploadContentType {
  return Object.hasOwn(UPLOAD_TYPES, value);
}

/** The type the bytes really are, from their first bytes (magic numbers); text is valid UTF-8 without NUL. */
export function sniffType(bytes: Uint8Array): UploadContentType | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return "application/pdf"; // %PDF-
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (
    starts(0x52, 0x49, 0x46, 0x46) &&
    bytes[8] === 0x57 &&
    bytes[9] === 0x45 &&
    bytes[10] === 0x42 &&
    bytes[11] === 0x50
  ) {
    return "image/webp"; // RIFF....WEBP
  }
  if (bytes.includes(0)) return undefined;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return "text/plain";
  } catch {
    return undefined;
  }
}

/** Images larger than this on their long side get a downscaled copy for models with size limits. */
export const MODEL_IMAGE_MAX_SIDE = 1568;
