import type { Meilisearch } from "../../search-index/client";
import { indexUid } from "../../search-index/indexes";
import { finishedTask } from "../../search-index/taskWatcher";
import type { Db } from "../db/sql";
import { listPapersInRange, upsertPapers } from "../papers/repository";
import { toPaperDocument } from "../papers/search/document";
import type { Paper } from "../records/paper";

/** A batch may wait behind many others: a full snapshot's batches queue up in Meilisearch. */
const SEARCH_WRITE_TIMEOUT_MS = 600_000;

export interface IndexDeps {
  sql: Db;
  meili: Meilisearch;
  indexPrefix: string;
}

/** A batch sent to Meilisearch: its task, to wait for with `searchApplied`. */
export interface SearchWrite {
  taskUid: number;
  papers: number;
}

/**
 * Stores a batch of papers: PostgreSQL first (the source of truth), then Meilisearch's task is
 * queued. Both writes are upserts by id, so a retried or repeated batch leaves exactly one copy of
 * each paper. The caller waits with `searchApplied`, and need not hold the papers meanwhile.
 */
export async function storePapers(deps: IndexDeps, papers: Paper[]): Promise<SearchWrite> {
  await upsertPapers(deps.sql, papers);
  return sendToSearch(deps, papers);
}

/** `storePapers`, then the wait: the batch is searchable when this resolves. */
export async function indexPapers(deps: IndexDeps, papers: Paper[]): Promise<{ papers: number }> {
  return searchApplied(deps, await storePapers(deps, papers));
}

/** Rebuilds the search documents of papers already in PostgreSQL (`after < id <= through`). */
export async function reindexRange(deps: IndexDeps, after: string, through: string): Promise<{ papers: number }> {
  return searchApplied(deps, await sendToSearch(deps, await listPapersInRange(deps.sql, after, through)));
}

async function sendToSearch(deps: IndexDeps, papers: Paper[]): Promise<SearchWrite> {
  if (papers.length === 0) return { taskUid: -1, papers: 0 };
  const task = await deps.meili
    .index(indexUid(deps.indexPrefix, "papers"))
    .addDocuments(papers.map(toPaperDocument), { primaryKey: "pk" });
  return { taskUid: task.taskUid, papers: papers.length };
}

/** Waits until Meilisearch has applied a batch; a failed task is an error (the job retries). */
export async function searchApplied(deps: IndexDeps, write: SearchWrite): Promise<{ papers: number }> {
  if (write.papers === 0) return { papers: 0 };
  const task = await finishedTask(deps.meili, write.taskUid, SEARCH_WRITE_TIMEOUT_MS);
  if (task.status !== "succeeded") {
    throw new Error(`Meilisearch task ${task.uid} ${task.status}: ${JSON.stringify(task.error)}`);
  }
  return { papers: write.papers };
}
