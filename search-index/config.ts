import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Env } from "../shared/core/env";

export function localMeiliUrl(env: Env): string {
  return `http://127.0.0.1:${env.MEILI_PORT}`;
}

/** Where the bundled Meilisearch keeps its data and generated master key. */
export function localMeiliDir(env: Env): string {
  return resolve(env.DATA_DIR, "meili");
}

export function masterKeyFile(env: Env): string {
  return join(localMeiliDir(env), "master-key");
}

/**
 * The Meilisearch URL and key for this process: MEILI_URL / MEILI_MASTER_KEY when set, otherwise
 * the server `bun run start` launches locally, whose generated key sits in the data directory.
 */
export function meiliConnection(env: Env): { url: string; apiKey: string | undefined } {
  if (env.MEILI_URL) return { url: env.MEILI_URL, apiKey: env.MEILI_MASTER_KEY };
  const file = masterKeyFile(env);
  const apiKey = env.MEILI_MASTER_KEY ?? (existsSync(file) ? readFileSync(file, "utf8").trim() : undefined);
  return { url: localMeiliUrl(env), apiKey };
}
