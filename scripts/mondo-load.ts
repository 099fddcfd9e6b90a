/**
 * `bun run mondo:load <file>`: imports MONDO terms into PostgreSQL and the Meilisearch `conditions`
 * index through the queue. Accepts the official releases (`mondo.obo`, `mondo.json` in OBO Graphs
 * JSON) and a JSON Lines extract of them (shared/data/mondo/PROVENANCE.md), gzip or not, recognised by content.
 * Obsolete terms are not loaded, and removed when an earlier load had them. Re-running is safe:
 * every write is keyed by MONDO id. Prints a JSON summary on stdout. Needs running workers.
 */
import { readMondo, toBatches } from "../shared/conditions/load";
import { loadEnv } from "../shared/core/env";
import { runCli } from "./lib/batchJobs";
import { runConditionBatches } from "./lib/conditionJobs";

runCli(async () => {
  const path = Bun.argv[2];
  if (!path || !(await Bun.file(path).exists())) {
    console.error(
      JSON.stringify({
        error: {
          code: "BAD_REQUEST",
          message: "usage: bun run mondo:load <mondo.obo | mondo.json | terms.jsonl>[.gz]",
        },
      }),
    );
    return 2;
  }
  let read: ReturnType<typeof readMondo>;
  try {
    read = readMondo(await Bun.file(path).bytes());
  } catch (error) {
    console.error(JSON.stringify({ error: { code: "BAD_REQUEST", message: (error as Error).message } }));
    return 2;
  }
  const batches = toBatches(read.terms);
  const terms = batches.reduce((sum, batch) => sum + batch.terms.length, 0);
  const obsolete = batches.reduce((sum, batch) => sum + batch.obsolete.length, 0);
  const { seconds } = batches.length > 0 ? await runConditionBatches(loadEnv(), batches) : { seconds: 0 };
  const summary = {
    file: path,
    format: read.format,
    terms,
    obsoleteSkipped: obsolete,
    batches: batches.length,
    invalid: read.invalid.length,
    invalidSamples: read.invalid.slice(0, 5),
    seconds,
  };
  console.log(JSON.stringify(summary));
  return terms === 0 ? 1 : 0;
});
