import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { listMigrations, migrate } from "../../../shared/db/migrate";
import { call } from "../../helpers/http";
import { testDeps, testWorld } from "../../helpers/infra";

let deps: Deps;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  deps = await testDeps();
  const { env } = await testWorld();
  cliEnv = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: env.DATABASE_URL as string,
    REDIS_PREFIX: env.REDIS_PREFIX,
    LOG_LEVEL: "silent",
  };
});

/** Runs the real CLI as a separate process, as a dashboard or an operator would. */
function admin(...args: string[]): { code: number; out: Record<string, unknown>; err: string } {
  const result = Bun.spawnSync([process.execPath, "scripts/admin.ts", ...args], { env: cliEnv });
  const stdout = result.stdout.toString().trim();
  return { code: result.exitCode ?? -1, out: stdout ? JSON.parse(stdout) : {}, err: result.stderr.toString() };
}

describe("admin CLI", () => {
  test("accounts:create → keys:create → keys:revoke → accounts:set-plan, machine-readable and effective", async () => {
    const created = admin("accounts:create", "--plan", "free", "--email", `cli-${Date.now()}@example.com`);
    expect(created.code).toBe(0);
    expect(created.out).toEqual({
      accountId: expect.any(String),
      plan: "free",
      apiKey: expect.stringMatching(/^phk_/),
      keyId: expect.any(String),
    });
    const app = createApp(deps);
    const firstKey = created.out.apiKey as string;
    expect((await call(app, "/api/v1/account", { key: firstKey })).status).toBe(200);
    expect((await call(app, "/api/v1/health/symptoms", { key: firstKey })).status).toBe(403);

    const second = admin("keys:create", "--account", created.out.accountId as string);
    expect(second.code).toBe(0);
    expect(second.out).toEqual({ apiKey: expect.stringMatching(/^phk_/), keyId: expect.any(String) });

    const revoked = admin("keys:revoke", "--key-id", created.out.keyId as string);
    expect(revoked.code).toBe(0);
    expect((await call(app, "/api/v1/account", { key: firstKey })).status).toBe(401);

    const upgraded = admin("accounts:set-plan", "--account", created.out.accountId as string, "--plan", "go");
    expect(upgraded.out).toEqual({ accountId: created.out.accountId, plan: "go" });
    expect((await call(app, "/api/v1/health/symptoms", { key: second.out.apiKey as string })).status).toBe(200);

    const listed = admin("keys:list", "--account", created.out.accountId as string);
    const keys = listed.out.keys as { displayPrefix: string; revokedAt: string | null }[];
    expect(keys).toHaveLength(2);
    expect(keys.filter((key) => key.revokedAt !== null)).toHaveLength(1);
    expect(JSON.stringify(listed.out)).not.toContain(firstKey);
  });

  test("bad input → JSON error on stderr and exit code 2", () => {
    for (const args of [
      ["accounts:create", "--plan", "platinum"],
      ["keys:revoke", "--key-id", "not-a-uuid"],
      ["keys:create", "--account", "018f0000-0000-7000-8000-000000000000"],
      ["accounts:create", "--plan", "go", "--bogus", "x"],
      ["no-such-command"],
    ]) {
      const result = admin(...args);
      expect(result.code).toBe(2);
      expect(JSON.parse(result.err).error.code).toMatch(/^[A-Z_]+$/);
    }
  });

  test("a duplicate email is a conflict", () => {
    const email = `dup-${Date.now()}@example.com`;
    expect(admin("accounts:create", "--plan", "go", "--email", email).code).toBe(0);
    const again = admin("accounts:create", "--plan", "go", "--email", email.toUpperCase());
    expect(again.code).toBe(2);
    expect(JSON.parse(again.err).error.code).toBe("CONFLICT");
  });
});

describe("migrations", () => {
  test("every migration is recorded once; running again applies nothing", async () => {
    const files = await listMigrations();
    const rows = await deps.sql`select version from schema_migrations order by version`;
    expect(rows.map((row) => row.version)).toEqual(files.map((file) => file.version));
    expect(await migrate(deps.sql)).toEqual([]);
  });

  test("concurrent migrators serialize on the advisory lock", async () => {
    const results = await Promise.all([migrate(deps.sql), migrate(deps.sql), migrate(deps.sql)]);
    expect(results.flat()).toEqual([]);
  });
});
