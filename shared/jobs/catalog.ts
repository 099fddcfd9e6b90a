import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import type { JobsOptions } from "bullmq";
import { Text } from "../core/text";
import { ConditionBatchSchema } from "../records/conditionTerm";
import { SourcePaperSchema } from "../records/paper";
import { ChatTurnSchema } from "./payloads/chatTurn";
import { LabelQuerySchema, MedicationQuerySchema } from "./payloads/referenceQueries";
import { TranscriptionJobSchema } from "./payloads/transcription";

/**
 * Every background job, declared once: its queue, payload schema and options. Producers validate
 * payloads before enqueueing, processors re-parse them, and the processor map in `workers/` is typed
 * by these names, so a job without a processor fails the typecheck. Payloads never carry secrets.
 */
interface JobSpec<S extends TSchema> {
  queue: QueueName;
  payload: S;
  options: JobsOptions;
  /** Repeatable jobs: how often the scheduler enqueues one. */
  everyMs?: number;
}

export const QUEUES = [
  "maintenance",
  "papers",
  "rxnav",
  "openfda",
  "conditions",
  "chat",
  "uploads",
  "transcription",
] as const;
export type QueueName = (typeof QUEUES)[number];

/**
 * The queues a worker process runs, from `WORKER_QUEUES` (comma-separated; unset or blank → all).
 * An unknown name fails the start instead of leaving a queue without workers unnoticed.
 */
export function selectQueues(list: string | undefined): readonly QueueName[] {
  const names = [...new Set((list ?? "").split(",").map((name) => name.trim()))].filter(Boolean);
  if (names.length === 0) return QUEUES;
  const unknown = names.filter((name) => !(QUEUES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`WORKER_QUEUES: unknown queue ${unknown.join(", ")} (queues: ${QUEUES.join(", ")})`);
  }
  return names as QueueName[];
}

/**
 * Jobs each worker process runs at once per queue. Meilisearch merges document tasks that are
 * queued together into one indexing batch, whose fixed cost dominates small batches: many paper
 * jobs in flight give it large batches to merge.
 */
export const QUEUE_CONCURRENCY: Record<QueueName, number> = {
  maintenance: 1,
  // A paper batch mostly waits for its Meilisearch task (holding no records then): many in flight
  // make Meilisearch's batches large (scripts/lib/paperJobs.ts). A full snapshot ingest peaks at
  // ~700 MB RSS in the worker process, while batches are parsed and stored.
  papers: 128,
  rxnav: 4,
  openfda: 4,
  conditions: 4,
  // A turn mostly waits on the model and the tools: with a hosted model a turn lasts seconds, so
  // a slot limit below the number of open chats makes the last ones wait a whole answer for their
  // first chunk. One process takes 256 at once (200 concurrent chats in docs/benchmarks.md).
  chat: 256,
  // PDF text extraction and image resizing are CPU-bound: two per process on two cores.
  uploads: 2,
  // Transcription waits on the provider.
  transcription: 8,
};

/**
 * Jobs one BullMQ `Worker` fetches before it starts any of them. BullMQ's fetch loop
 * (`Worker.mainLoop`, node_modules/bullmq/dist/esm/classes/worker.js lines 296–342) fetches jobs one
 * `moveToActive` round trip at a time and calls `processJob` only once its inner loop stops: when
 * the queue is empty, the worker's concurrency is reached, or a delayed job is due. During a burst
 * the queue keeps refilling, so a worker with 256 slots fetched the whole burst before running the
 * first turn (every `start` left within a few ms of the last enqueue). A queue listed here runs as
 * several `Worker`s of at most this many slots each (their slots add up to the queue's concurrency),
 * so a fetched job waits for at most this many fetches. Each `Worker` has its own blocking connection.
 */
export const QUEUE_FETCH_BATCH: Partial<Record<QueueName, number>> = {
  chat: 8,
};

/** How a queue's slots in one process are split into BullMQ `Worker`s: the slots of each. */
export function workerSlots(concurrency: number, batch: number | undefined): number[] {
  if (!batch || concurrency <= batch) return [concurrency];
  const slots = Array.from({ length: Math.floor(concurrency / batch) }, () => batch);
  if (concurrency % batch) slots.push(concurrency % batch);
  return slots;
}

/**
 * BullMQ's limiter per queue (jobs started per `duration` ms, across every worker process), set so
 * each upstream's published limit holds: one RxNav lookup makes at most 6 calls (RxNav allows 20
 * per second per IP), one openFDA lookup at most 3 (openFDA allows 240 per minute per key or IP).
 */
export const QUEUE_LIMITERS: Partial<Record<QueueName, { max: number; duration: number }>> = {
  rxnav: { max: 3, duration: 1000 },
  openfda: { max: 80, duration: 60_000 },
};

/**
 * A chat turn whose worker died must end quickly and exactly once: its lock lapses after 10 s, the
 * next stalled-job check (every 5 s, by any live worker) fails it instead of running it again
 * (maxStalledCount 0), and its failure clean-up tells the client and stores an error reply.
 */
export const QUEUE_WORKER_OPTIONS: Partial<
  Record<QueueName, { lockDuration: number; stalledInterval: number; maxStalledCount: number }>
> = {
  chat: { lockDuration: 10_000, stalledInterval: 5_000, maxStalledCount: 0 },
};

/** Largest paper batch one job carries (≈ 1.7 MB of JSON when every record has an abstract). */
export const PAPER_BATCH_MAX = 1000;

const keepHistory = { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } } satisfies JobsOptions;

export const JOBS = {
  /** Copies API-key last-used times from Redis to PostgreSQL, so requests never write PostgreSQL for it. */
  "maintenance.flush-key-usage": {
    queue: "maintenance",
    payload: T.Object({}, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 1000 }, ...keepHistory },
    everyMs: 60_000,
  },
  /** Upserts a batch of arXiv snapshot records into PostgreSQL and Meilisearch (idempotent). */
  "papers.index-batch": {
    queue: "papers",
    payload: T.Object({ records: T.Array(SourcePaperSchema, { minItems: 1, maxItems: PAPER_BATCH_MAX }) }),
    // A finished batch's 1,000 records (~1.7 MB) are not worth keeping in Redis: a short history.
    options: {
      attempts: 5,
      backoff: { type: "exponential", delay: 2000 },
      removeOnComplete: { count: 10 },
      removeOnFail: { count: 100 },
    },
  },
  /** Rebuilds the Meilisearch documents of the papers with `after < id <= through` from PostgreSQL. */
  "papers.reindex-range": {
    queue: "papers",
    payload: T.Object({ after: Text({ maxLength: 64 }), through: Text({ minLength: 1, maxLength: 64 }) }),
    options: { attempts: 5, backoff: { type: "exponential", delay: 2000 }, ...keepHistory },
  },
  /** Looks a medication up in RxNav (name, RxCUI or NDC); caches the result in PostgreSQL. */
  "references.rxnav-lookup": {
    queue: "rxnav",
    payload: MedicationQuerySchema,
    // Transient upstream failures retry with backoff; the API waits a bounded time and falls back to the cache.
    options: { attempts: 3, backoff: { type: "exponential", delay: 500 }, ...keepHistory },
  },
  /** Finds the openFDA label for RxNav's concepts (by RxCUI, then by name); caches it in PostgreSQL. */
  "references.openfda-lookup": {
    queue: "openfda",
    payload: LabelQuerySchema,
    options: { attempts: 3, backoff: { type: "exponential", delay: 500 }, ...keepHistory },
  },
  /** Upserts a batch of MONDO terms into PostgreSQL and Meilisearch and removes obsolete ones (idempotent). */
  "conditions.index-batch": {
    queue: "conditions",
    payload: ConditionBatchSchema,
    options: { attempts: 5, backoff: { type: "exponential", delay: 2000 }, ...keepHistory },
  },
  /**
   * Runs one chat turn: model with tools, chunks published to Redis, the reply stored. One attempt:
   * a turn that fails (or whose worker dies) ends with an error event and an error reply, never a
   * second answer streamed over a half-sent first one.
   */
  "chat.turn": {
    queue: "chat",
    payload: ChatTurnSchema,
    options: { attempts: 1, ...keepHistory },
  },
  /**
   * Transcribes audio parked in Redis with one provider. Transient provider failures (network,
   * timeout, 429, 5xx) retry with backoff while the request waits, bounded by TRANSCRIPTION_WAIT_MS.
   */
  "transcription.audio": {
    queue: "transcription",
    payload: TranscriptionJobSchema,
    options: { attempts: 3, backoff: { type: "exponential", delay: 500 }, ...keepHistory },
  },
  /** Checks and reads one uploaded file (type by magic bytes, PDF text, image size and copy); idempotent. */
  "uploads.process": {
    queue: "uploads",
    payload: T.Object({ fileId: T.String({ format: "uuid" }) }, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 1000 }, ...keepHistory },
  },
  /**
   * Reads lab panels from a ready PDF upload's extracted text (parser, or a model checked against
   * the text) and stores them; idempotent: a file whose panels exist gets them back.
   */
  "labs.import-report": {
    queue: "uploads",
    // `model`: the catalog id of the model that reads the report instead of the parser, if any.
    payload: T.Object(
      { fileId: T.String({ format: "uuid" }), model: T.Optional(Text({ minLength: 1, maxLength: 200 })) },
      { additionalProperties: false },
    ),
    options: { attempts: 3, backoff: { type: "exponential", delay: 500 }, ...keepHistory },
  },
  /**
   * Reads a health record (FHIR R4 Bundle or C-CDA) from a ready upload and stores what it keeps,
   * as one import; idempotent: a file already imported gets its import back. `proceed`: store it
   * even though it names another patient than earlier imports.
   */
  "health.import-record": {
    queue: "uploads",
    payload: T.Object({ fileId: T.String({ format: "uuid" }), proceed: T.Boolean() }, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 500 }, ...keepHistory },
  },
  /** Deletes presigned uploads whose URL lapsed unused. */
  "uploads.expire-pending": {
    queue: "maintenance",
    payload: T.Object({}, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 1000 }, ...keepHistory },
    everyMs: 300_000,
  },
  /** Deletes OAuth codes, tokens, sessions and interactions past their expiry (readers already skip them), and clients never granted anything a day after registering. */
  "maintenance.sweep-oauth": {
    queue: "maintenance",
    payload: T.Object({}, { additionalProperties: false }),
    options: { attempts: 3, backoff: { type: "exponential", delay: 1000 }, ...keepHistory },
    everyMs: 3_600_000,
  },
} as const satisfies Record<string, JobSpec<TSchema>>;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = Static<(typeof JOBS)[N]["payload"]>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOBS, name);
}
