import type { Settings } from "meilisearch";
import type { Meilisearch } from "./client";

/**
 * How an index is declared and set up. `applyIndexes` creates each index when
 * missing and (re)applies its settings; Meilisearch skips work when nothing changed. Index uids
 * carry the deployment's prefix, so tests and several deployments can share one server.
 */
export interface IndexDefinition {
  name: string;
  primaryKey: string;
  settings: Settings;
  /**
   * A field every document of the current layout has. Documents without it were written by an
   * earlier version: `applyIndexes` deletes them, and a reindex from PostgreSQL rebuilds them.
   */
  layoutField?: string;
}

export function indexUid(prefix: string, name: string): string {
  return `${prefix}${name}`;
}

/**
 * Creates each index when missing, (re)applies its settings, and empties an index whose documents
 * have an earlier layout (see `layoutField`). Returns the names of the indexes it emptied: their
 * documents must be rebuilt from PostgreSQL (`bun run papers:reindex`; `bun run start` does it).
 */
export async function applyIndexes(
  meili: Meilisearch,
  prefix: string,
  indexes: readonly IndexDefinition[],
): Promise<string[]> {
  const emptied: string[] = [];
  for (const definition of indexes) {
    const uid = indexUid(prefix, definition.name);
    const existing = await meili.getIndex(uid).catch(() => undefined);
    if (!existing) await meili.createIndex(uid, { primaryKey: definition.primaryKey }).waitTask({ timeout: 60_000 });
    if (existing && definition.layoutField && (await hasOtherLayout(meili, uid, definition.layoutField))) {
      await settled(meili.index(uid).deleteAllDocuments().waitTask({ timeout: 600_000, interval: 100 }), uid);
      emptied.push(definition.name);
    }
    // A settings change re-indexes every document: minutes on a large index, so wait long.
    await settled(
      meili.index(uid).updateSettings(definition.settings).waitTask({ timeout: 600_000, interval: 100 }),
      uid,
    );
  }
  return emptied;
}

/** Whether some documents lack the layout's field (an older version wrote them). */
async function hasOtherLayout(meili: Meilisearch, uid: string, field: string): Promise<boolean> {
  const stats = await meili.index(uid).getStats();
  return (stats.fieldDistribution[field] ?? 0) < stats.numberOfDocuments;
}

async function settled(waiting: Promise<{ status: string; error?: unknown }>, uid: string): Promise<void> {
  const task = await waiting;
  if (task.status !== "succeeded") {
    throw new Error(`Meilisearch task on ${uid} failed: ${JSON.stringify(task.error)}`);
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
