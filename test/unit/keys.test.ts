import { describe, expect, test } from "bun:test";
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedKey,
  KEY_PREFIX,
  sameHash,
} from "../../shared/core/keys";

describe("API keys", () => {
  test("have the service prefix, ≥ 32 random bytes in base58, and are unique", () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const key of keys) {
      expect(key.startsWith(`${KEY_PREFIX}_`)).toBe(true);
      const body = key.slice(KEY_PREFIX.length + 1);
      expect(body).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
      // 32 bytes = 256 bits; base58 carries log2(58) ≈ 5.86 bits per character.
      expect(body.length * Math.log2(58)).toBeGreaterThanOrEqual(250);
      expect(isWellFormedKey(key)).toBe(true);
    }
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
