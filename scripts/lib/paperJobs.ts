import type { Env } from "../../shared/env";
import { type Submit, withQueueBatches } from "./batchJobs";

/** Batches queued ahead of the workers: enough to keep every worker slot and Meilisearch busy. */
const IN_FLIGHT = 16;

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
