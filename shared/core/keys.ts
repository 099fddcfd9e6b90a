import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * API keys look like `phk_<44 base58 characters>`: a fixed service prefix, then 32 random bytes in
 * base58 (no look-alike characters, double-click selects the whole key). Only the SHA-256 of the
 * key is stored; a person recognises a key by its display prefix, e.g. `phk_9xQe3T…`.
 */
export const KEY_PREFIX = "phk";
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}_[${ALPHABET}]{40,48}$`);
const DISPLAY_CHARS = 6;

export function generateApiKey(): string {
  return `${KEY_PREFIX}_${base58(randomBytes(32))}`;
}

const KEY_LIKE = new RegExp(`${KEY_PREFIX}_[${ALPHABET}]{16,}`, "g");

/**
 * The text with anything shaped like a key (or most of one) replaced: for texts that repeat what
 * a client sent (a not-found message naming the id it was given, an unmatched path in the access
 * log), in case a client pasted its key there.
 */
export function withoutKeys(text: string): string {
  return text.includes(`${KEY_PREFIX}_`) ? text.replace(KEY_LIKE, `${KEY_PREFIX}_[removed]`) : text;
}

/** Cheap shape check before any lookup: malformed keys never reach Redis or PostgreSQL. */
export function isWellFormedKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

export function displayPrefix(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 1 + DISPLAY_CHARS)}…`;
}

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Bitcoin's base58: each leading zero byte is a `1`, the rest is the number in base 58. */
export function base58(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let out = "";
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}
