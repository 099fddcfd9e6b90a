import { listPapersInRange, upsertPapers } from "../shared/db/repositories/papers";
import type { Db } from "../shared/db/sql";
import type { Paper } from "../shared/papers/record";
import type { Meilisearch } from "./client";
import { toPaperDocument } from "./papers";
import { indexUid } from "./settings";

export interface IndexDeps {
  sql: Db;
  meili: Meilisearch;
  indexPrefix: string;
}

/**
 * Stores a batch of papers: PostgreSQL first (the source of truth), then Meilisearch, waiting until
 * Meilisearch has applied the batch. Both writes are upserts by id, so a retried or repeated batch
 * leaves exactly one copy of each paper.
 */
export async function indexPapers(deps: IndexDeps, papers: Paper[]): Promise<{ papers: number }> {
  if (papers.length === 0) return { papers: 0 };
  await upsertPapers(deps.sql, papers);
  return pushToSearch(deps, papers);
}

/** Rebuilds the search documents of papers already in PostgreSQL (`after < id <= through`). */
export async function reindexRange(deps: IndexDeps, after: string, through: string): Promise<{ papers: number }> {
  return pushToSearch(deps, await listPapersInRange(deps.sql, after, through));
}

async function pushToSearch(deps: IndexDeps, papers: Paper[]): Promise<{ papers: number }> {
  if (papers.length === 0) return { papers: 0 };
  const task = await deps.meili
    .index(indexUid(deps.indexPrefix, "papers"))
    .addDocuments(papers.map(toPaperDocument), { primaryKey: "pk" })
    .waitTask({ timeout: 120_000, interval: 50 });
  if (task.status !== "succeeded") {
    throw new Error(`Meilisearch task ${task.uid} ${task.status}: ${JSON.stringify(task.error)}`);
  }
  return { papers: papers.length };
}
