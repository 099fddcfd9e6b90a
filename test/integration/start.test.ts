import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/lib/processes";
import { LOCAL_DATABASE_URL } from "../../shared/core/env";
import { createRedis } from "../../shared/core/redis";
import { dropDatabase } from "../../shared/db/sql";
import { RUN_ID } from "../helpers/infra";

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
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    const tree = descendants(child.pid);
    expect(tree.length).toBeGreaterThanOrEqual(3); // api, workers, meilisearch
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    for (const pid of tree) expect(alive(pid)).toBe(false);
  }, 60_000);
});
