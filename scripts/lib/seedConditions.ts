import { join } from "node:path";
import { countConditions } from "../../shared/db/repositories/conditions";
import { createSql } from "../../shared/db/sql";
import { databaseUrl, type Env } from "../../shared/env";

/** The real MONDO slice shipped with the project (provenance in shared/data/mondo/PROVENANCE.md). */
export const DEMO_CONDITIONS = join(import.meta.dir, "../../shared/data/mondo/demo.jsonl.gz");

/**
 * Loads the demo MONDO terms through the queue (like any `mondo:load`) when the conditions table is
 * empty. Runs the loader CLI as a child so its progress shows as usual; needs running workers.
 */
export async function seedDemoConditions(env: Env, childEnv: Record<string, string | undefined>): Promise<void> {
  const sql = createSql(databaseUrl(env), { max: 1 });
  const count = await countConditions(sql).finally(() => sql.end({ timeout: 5 }));
  if (count > 0) return;
  process.stdout.write("Loading the demo conditions (MONDO)…\n");
  const load = Bun.spawn([process.execPath, "scripts/mondo-load.ts", DEMO_CONDITIONS], {
    env: childEnv,
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await load.exited) !== 0) throw new Error("Loading the demo conditions failed (see above).");
}
