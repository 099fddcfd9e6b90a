import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The configuration this layer reads, passed in by the caller (this layer reads no environment of
 * its own). The fields carry the environment variables' names (shared/core/env.ts), so the parsed
 * environment is passed as it is.
 */
export interface MeiliSettings {
  MEILI_URL?: string | undefined;
  MEILI_MASTER_KEY?: string | undefined;
  /** The bundled server's loopback port, when MEILI_URL is unset. */
  MEILI_PORT: number;
  DATA_DIR: string;
}

export function localMeiliUrl(settings: MeiliSettings): string {
  return `http://127.0.0.1:${settings.MEILI_PORT}`;
}

/** Where the bundled Meilisearch keeps its data and generated master key. */
export function localMeiliDir(settings: MeiliSettings): string {
  return resolve(settings.DATA_DIR, "meili");
}

export function masterKeyFile(settings: MeiliSettings): string {
  return join(localMeiliDir(settings), "master-key");
}

/**
 * The Meilisearch URL and key for this process: MEILI_URL / MEILI_MASTER_KEY when set, otherwise
 * the server `bun run start` launches locally, whose generated key sits in the data directory.
 */
export function meiliConnection(settings: MeiliSettings): { url: string; apiKey: string | undefined } {
  if (settings.MEILI_URL) return { url: settings.MEILI_URL, apiKey: settings.MEILI_MASTER_KEY };
  const file = masterKeyFile(settings);
  const apiKey = settings.MEILI_MASTER_KEY ?? (existsSync(file) ? readFileSync(file, "utf8").trim() : undefined);
  return { url: localMeiliUrl(settings), apiKey };
}
