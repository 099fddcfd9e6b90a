import type { Env } from "../../shared/core/env";
import type { ConditionTerm } from "../../shared/records/conditionTerm";
import { withQueueBatches } from "./batchJobs";

/** Batches queued ahead of the workers: the conditions queue's concurrency, times two. */
const IN_FLIGHT = 8;

/** Runs term batches through the `conditions` queue and resolves when every batch is done. */
export async function runConditionBatches(
  env: Env,
  batches: { terms: ConditionTerm[]; obsolete: string[] }[],
): Promise<{ seconds: number }> {
  const { seconds } = await withQueueBatches(
    env,
    "conditions",
    { inFlight: IN_FLIGHT, progress: (terms) => `${terms.toLocaleString("en-US")} terms processed` },
    async (submit) => {
      for (const batch of batches) {
        await submit("conditions.index-batch", batch, batch.terms.length + batch.obsolete.length);
      }
    },
  );
  return { seconds: Math.round(seconds * 100) / 100 };
}
