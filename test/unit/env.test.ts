import { describe, expect, test } from "bun:test";
import { databaseUrl, LOCAL_DATABASE_URL, parseEnv, publicUrl } from "../../shared/core/env";

describe("env", () => {
  test("defaults apply and numbers convert", () => {
    const env = parseEnv({ PORT: "8080" });
    expect(env.PORT).toBe(8080);
    expect(env.REDIS_PREFIX).toBe("phs");
    expect(databaseUrl(env)).toBe(LOCAL_DATABASE_URL);
    expect(publicUrl(env)).toBe("http://127.0.0.1:8080");
  });

  test("invalid values fail fast, naming the variable", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ REDIS_PREFIX: "has:colon" })).toThrow(/REDIS_PREFIX/);
    expect(() => parseEnv({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });

  test("empty strings count as unset", () => {
    expect(parseEnv({ MEILI_URL: "" }).MEILI_URL).toBeUndefined();
  });
});
