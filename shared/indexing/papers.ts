import { announceIndexChange } from "../../search-index/answerCache";
import { indexUid } from "../../search-index/indexes";
import { writeApplied } from "../../search-index/taskWatcher";
import type { SystemCtx } from "../context/ctx";
import type { JobPayload } from "../jobs/catalog";
import { listPapersInRange, upsertPapers } from "../papers/repository";
import { toPaperDocument } from "../papers/search/document";
import { type Paper, toPaper } from "../records/paper";

type IndexCtx = Pick<SystemCtx, "sql" | "meili" | "env" | "redis">;

/** A batch may wait behind many others: a full snapshot's batches queue up in Meilisearch. */
const SEARCH_WRITE_TIMEOUT_MS = 600_000;

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
export async function storePapers(ctx: IndexCtx, papers: Paper[]): Promise<SearchWrite> {
  await upsertPapers(ctx.sql, papers);
  return sendToSearch(ctx, papers);
}

/** `storePapers`, then the wait: the batch is searchable when this resolves. */
export async function indexPapers(ctx: IndexCtx, papers: Paper[]): Promise<{ papers: number }> {
  return searchApplied(ctx, await storePapers(ctx, papers));
}

/** Rebuilds the search documents of papers already in PostgreSQL (`after < id <= through`). */
export async function reindexRange(
  ctx: IndexCtx,
  range: { after: string; through: string },
): Promise<{ papers: number }> {
  return searchApplied(ctx, await sendToSearch(ctx, await listPapersInRange(ctx.sql, range.after, range.through)));
}

async function sendToSearch(ctx: Pick<SystemCtx, "meili" | "env">, papers: Paper[]): Promise<SearchWrite> {
  if (papers.length === 0) return { taskUid: -1, papers: 0 };
  const task = await ctx.meili
    .index(indexUid(ctx.env.MEILI_INDEX_PREFIX, "papers"))
    .addDocuments(papers.map(toPaperDocument), { primaryKey: "pk" });
  return { taskUid: task.taskUid, papers: papers.length };
}

/**
 * Waits until Meilisearch has applied a batch; a failed task is an error (the job retries). Once it
 * has, every process's cached search answers of the index are announced stale.
 */
export async function searchApplied(ctx: IndexCtx, write: SearchWrite): Promise<{ papers: number }> {
  if (write.papers === 0) return { papers: 0 };
  await writeApplied(ctx.meili, write.taskUid, SEARCH_WRITE_TIMEOUT_MS);
  await announceIndexChange(ctx.redis, ctx.env.REDIS_PREFIX, indexUid(ctx.env.MEILI_INDEX_PREFIX, "papers"));
  return { papers: write.papers };
}

/**
 * PostgreSQL, then Meilisearch's task, then the wait for it. While it waits the job holds no
 * records: they are dropped from this process's copy of the job (Redis keeps the job's own, for a
 * retry), so the many jobs in flight that large Meilisearch batches need cost little memory.
 */
export async function indexPaperBatch(ctx: IndexCtx, payload: JobPayload<"papers.index-batch">) {
  const write = await storePapers(ctx, payload.records.map(toPaper));
  payload.records = [];
  return searchApplied(ctx, write);
}
