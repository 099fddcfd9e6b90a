import type { Settings } from "meilisearch";
import type { Meilisearch } from "./client";
import { CONDITIONS_SETTINGS } from "./conditions";
import { PAPERS_SETTINGS } from "./papers";

/**
 * Meilisearch indexes and their settings, as code. `applyIndexSettings` creates each index when
 * missing and (re)applies its settings; Meilisearch skips work when nothing changed. Index uids
 * carry the deployment's prefix, so tests and several deployments can share one server.
 */
export interface IndexDefinition {
  name: string;
  primaryKey: string;
  settings: Settings;
}

export const INDEXES: IndexDefinition[] = [
  // arXiv ids contain "." and "/", which Meilisearch primary keys do not allow; `pk` is a safe mapping.
  { name: "papers", primaryKey: "pk", settings: PAPERS_SETTINGS },
  { name: "conditions", primaryKey: "pk", settings: CONDITIONS_SETTINGS },
];

export function indexUid(prefix: string, name: string): string {
  return `${prefix}${name}`;
}

export async function applyIndexSettings(meili: Meilisearch, prefix: string, indexes = INDEXES): Promise<void> {
  for (const definition of indexes) {
    const uid = indexUid(prefix, definition.name);
    const existing = await meili.getIndex(uid).catch(() => undefined);
    if (!existing) await meili.createIndex(uid, { primaryKey: definition.primaryKey }).waitTask({ timeout: 60_000 });
    // A settings change re-indexes every document: minutes on a large index, so wait long.
    const task = await meili
      .index(uid)
      .updateSettings(definition.settings)
      .waitTask({ timeout: 600_000, interval: 100 });
    if (task.status !== "succeeded") {
      throw new Error(`Meilisearch settings for ${uid} failed: ${JSON.stringify(task.error)}`);
    }
  }
}

/** Deletes every index with this prefix (tests clean up after themselves). */
export async function dropIndexes(meili: Meilisearch, prefix: string): Promise<void> {
  if (!prefix) throw new Error("Refusing to drop indexes without a prefix");
  const { results } = await meili.getIndexes({ limit: 1000 });
  for (const index of results) {
    if (index.uid.startsWith(prefix)) await meili.deleteIndex(index.uid).waitTask();
  }
}
