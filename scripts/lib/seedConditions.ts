import { countConditions } from "../../shared/conditions/repository";
import type { Env } from "../../shared/core/env";
import { DEMO_CONDITIONS_FILE } from "../../shared/core/shippedData";
import { loadWhenEmpty } from "./seed";

/** The real MONDO slice shipped with the project (its provenance: mondo/PROVENANCE.md in the data folder). */
export const DEMO_CONDITIONS = DEMO_CONDITIONS_FILE;

/** Loads the demo MONDO terms through the queue (like any `mondo:load`) when the conditions table is empty. */
export function seedDemoConditions(env: Env, childEnv: Record<string, string | undefined>): Promise<void> {
  return loadWhenEmpty(env, childEnv, {
    what: "conditions (MONDO)",
    count: countConditions,
    script: "scripts/mondo-load.ts",
    file: DEMO_CONDITIONS,
  });
}
