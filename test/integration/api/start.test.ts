import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../scripts/lib/processes";
import { LOCAL_DATABASE_URL } from "../../../shared/core/env";
import { createRedis } from "../../../shared/core/redis";
import { dropDatabase } from "../../../shared/db/sql";
import { RUN_ID } from "../../helpers/infra";

const database = new URL(process.env.DATABASE_URL ?? LOCAL_DATABASE_URL);
database.pathname = `/phs_start_${RUN_ID}`;
const prefix = `s${RUN_ID}`;
let dataDir = "";

afterAll(async () => {
  await dropDatabase(database.toString());
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0", "worker");
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function descendants(pid: number): number[] {
  const children = Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("bun run start", () => {
  test("starts the whole service with a demo key, serves it, and stops every process on SIGTERM", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "phs-start-"));
    const port = freePort();
    const child = Bun.spawn([process.execPath, "run", "start"], {
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: database.toString(),
        REDIS_PREFIX: prefix,
        MEILI_PORT: String(freePort()),
        MEILI_URL: "",
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
      },
      stdout: "pipe",
      stderr: "pipe",
    });

    let output = "";
    const reader = child.stdout.getReader();
    while (!output.includes("Ctrl-C stops everything.")) {
      const { value, done } = await reader.read();
      if (done)
        throw new Error(
          `start exited early:\n${output}\n${await new Response(child.stderr).text()}\n${await Bun.file(
            join(dataDir, "meili", "server.log"),
          )
            .text()
            .catch(() => "")}`,
        );
      output += new TextDecoder().decode(value);
    }
    const key = /(phk_\w+)/.exec(output)?.[1];
    expect(key).toBeDefined();
    expect(output).toContain(`curl -H "Authorization: Bearer ${key}" http://127.0.0.1:${port}/api/v1/account`);
    expect(output).toContain(`http://127.0.0.1:${port}/openapi.json`);
    // The demo papers went through the queue into PostgreSQL and Meilisearch.
    expect(output).toContain('"records":3035');

    const account = await fetch(`http://127.0.0.1:${port}/api/v1/account`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(account.status).toBe(200);
    expect(((await account.json()) as { plan: string }).plan).toBe("pro");
    await expectDemoHealth(`http://127.0.0.1:${port}`, key as string);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    const tree = descendants(child.pid);
    expect(tree.length).toBeGreaterThanOrEqual(3); // api, workers, meilisearch
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    for (const pid of tree) expect(alive(pid)).toBe(false);
  }, 60_000);
});

/** The demo account's health pages have data at the first sign-in: consent, a log over weeks, two panels. */
async function expectDemoHealth(base: string, key: string): Promise<void> {
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    return (await response.json()) as any;
  };
  const profile = await get("/api/v1/health/profile");
  expect(profile).toMatchObject({ consentGiven: true, conditions: ["Asthma"] });
  const logs = await get("/api/v1/health/trackers");
  expect(logs.trackers).toHaveLength(1);
  const log = await get(`/api/v1/health/trackers/${logs.trackers[0].id}`);
  const times = log.entries.map((entry: { recordedAt: string }) => Date.parse(entry.recordedAt));
  expect(times.length).toBeGreaterThanOrEqual(10);
  expect((Math.max(...times) - Math.min(...times)) / 86_400_000).toBeGreaterThanOrEqual(14);
  const labs = await get("/api/v1/health/labs");
  expect(labs.panels).toHaveLength(2);
}
