/**
 * `bun run papers:reindex`: rebuilds every Meilisearch paper document from PostgreSQL (after a
 * settings change, a lost index, or to repair drift). Ranges of 1,000 ids go through the queue as
 * `papers.reindex-range` jobs; workers read them from PostgreSQL and replace the documents.
 * Needs workers (`bun run start` or `bun run workers`).
 */

import { databaseUrl, loadEnv } from "../shared/core/env";
import { createSql } from "../shared/db/sql";
import { PAPER_BATCH_MAX } from "../shared/jobs/catalog";
import { nextPaperIdAfter } from "../shared/papers/repository";
import { runCli } from "./lib/batchJobs";
import { withPaperQueue } from "./lib/paperJobs";

runCli(async () => {
  const env = loadEnv();
  const sql = createSql(databaseUrl(env), { max: 1 });
  try {
    const summary = await withPaperQueue(env, async (submit) => {
      let after = "";
      let papers = 0;
      let batches = 0;
      for (;;) {
        const page = await nextPaperIdAfter(sql, after, PAPER_BATCH_MAX);
        if (!page) break;
        await submit("papers.reindex-range", { after, through: page.last }, page.count);
        after = page.last;
        papers += page.count;
        batches += 1;
      }
      return { papers, batches };
    });
    console.log(JSON.stringify(summary));
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
});
