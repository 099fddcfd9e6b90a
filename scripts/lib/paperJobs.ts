import type { Env } from "../../shared/core/env";
import { type Submit, withQueueBatches } from "./batchJobs";

/**
 * Batches in flight (queued or waiting for their Meilisearch task). Meilisearch merges the tasks
 * queued while it indexes into one batch, and each batch costs a merge into the whole index: with
 * 16 in flight the 145k-paper snapshot took 38 batches (0.44–0.56 × the direct NDJSON rate), with
 * 160 it takes 4 (0.7–0.8 ×). The price is Redis memory: up to 160 × ~1.7 MB of queued records.
 */
const IN_FLIGHT = 160;

/** Runs paper batches through the `papers` queue, with docs/s in the progress line and the summary. */
export async function withPaperQueue<T>(
  env: Env,
  use: (submit: Submit) => Promise<T>,
): Promise<T & { seconds: number; docsPerSecond: number }> {
  const { result, done, seconds } = await withQueueBatches(
    env,
    "papers",
    {
      inFlight: IN_FLIGHT,
      progress: (papers, elapsed) =>
        `${papers.toLocaleString("en-US")} papers indexed, ${Math.round(papers / Math.max(elapsed, 0.001)).toLocaleString("en-US")} docs/s, ${elapsed.toFixed(1)} s`,
    },
    use,
  );
  return { ...result, seconds: Math.round(seconds * 100) / 100, docsPerSecond: Math.round(done / seconds) };
}
