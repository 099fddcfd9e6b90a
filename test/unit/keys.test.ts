import { describe, expect, test } from "bun:test";
import {
  base58,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedKey,
  KEY_PREFIX,
  sameHash,
} from "../../shared/core/keys";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** The inverse of base58, written independently: leading `1`s are zero bytes, the rest a number. */
function decodeBase58(text: string): Uint8Array {
  let value = 0n;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new Error(`not base58: ${char}`);
    value = value * 58n + BigInt(digit);
  }
  const hex = value === 0n ? "" : value.toString(16);
  const number = Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
  const zeros = /^1*/.exec(text)?.[0].length ?? 0;
  return new Uint8Array([...new Uint8Array(zeros), ...number]);
}

describe("API keys", () => {
  test("have the service prefix, then exactly 32 random bytes in base58, and are unique", () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const key of keys) {
      expect(key.startsWith(`${KEY_PREFIX}_`)).toBe(true);
      const body = key.slice(KEY_PREFIX.length + 1);
      expect(body).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
      // The length varies (a small leading byte makes it shorter); the bytes it carries do not.
      expect(decodeBase58(body)).toHaveLength(32);
      expect(isWellFormedKey(key)).toBe(true);
    }
  });

  test("base58 round-trips the rare draws: leading zero bytes, a small first byte, all ones", () => {
    const draws = [
      new Uint8Array(32),
      Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0 : i === 1 ? 1 : 200)),
      Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 7)),
      new Uint8Array(32).fill(255),
    ];
    for (const bytes of draws) expect(decodeBase58(base58(bytes))).toEqual(bytes);
    // Every draw but all zeros (32 `1`s, chance 2^-256) has the 40–48 characters a key may have.
    for (const bytes of draws.slice(1)) expect(isWellFormedKey(`${KEY_PREFIX}_${base58(bytes)}`)).toBe(true);
    // The draw that made a character count fail: 42 characters, still 32 bytes.
    expect(base58(draws[1] as Uint8Array).length).toBeLessThan(44);
  });

  test("malformed keys are recognised without a lookup", () => {
    for (const bad of ["", "phk_", "phk_0OIl", "sk_live_abc", `${generateApiKey()} `, `x${generateApiKey()}`]) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
  });

  test("only a hash and a short display prefix are derived for storage", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(sameHash(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(sameHash(hashApiKey(key), hashApiKey(generateApiKey()))).toBe(false);
    expect(displayPrefix(key)).toBe(`${key.slice(0, 10)}…`);
  });
});
