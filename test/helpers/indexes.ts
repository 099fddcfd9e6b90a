import { DEMO_PAPERS } from "../../scripts/lib/seed";
import { DEMO_CONDITIONS } from "../../scripts/lib/seedConditions";
import { announceIndexChange } from "../../search-index/answerCache";
import { indexUid } from "../../search-index/indexes";
import type { Deps } from "../../shared/context/deps";
import { applyIndexSettings } from "../../shared/indexing/settings";
import { toPaperDocument } from "../../shared/papers/search/document";
import { type Paper, parseSourceLine, type SourcePaper, toPaper } from "../../shared/records/paper";
import { startWorkers } from "../../workers/runner";
import { processEnvFor } from "./infra";

/** The bundled demo papers as API records, in file order. */
export async function demoPapers(): Promise<Paper[]> {
  return (await demoSources()).map(toPaper);
}

/** The bundled demo papers as the snapshot's source records (what an ingest takes). */
export async function demoSources(): Promise<SourcePaper[]> {
  const text = new TextDecoder().decode(Bun.gunzipSync(await Bun.file(DEMO_PAPERS).bytes()));
  return text.split("\n").filter(Boolean).map(parseSourceLine);
}

/**
 * Search indexes of a test file's own (index prefix `<run prefix><name>_`), so other files cannot
 * change what it expects: the bundled MONDO slice loaded through mondo:load and the queue, and the
 * bundled demo papers written straight into the papers index (the papers table belongs to the
 * ingest tests).
 */
export async function ownIndexes(base: Deps, name: string, options: { conditions?: boolean } = {}): Promise<Deps> {
  const prefix = `${base.env.MEILI_INDEX_PREFIX}${name}_`;
  const deps: Deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: prefix } };
  await applyIndexSettings(deps.meili, prefix);
  // The MONDO load takes most of the time (about 20 s here); `conditions: false` leaves that index empty.
  if (options.conditions !== false) await loadConditions(deps);
  const documents = (await demoPapers()).map(toPaperDocument);
  await deps.meili
    .index(indexUid(prefix, "papers"))
    .addDocuments(documents, { primaryKey: "pk" })
    .waitTask({ timeout: 60_000 });
  // As the workers do after a write: cached answers of an earlier index of this name are dropped.
  await announceIndexChange(deps.redis, deps.env.REDIS_PREFIX, indexUid(prefix, "papers"));
  return deps;
}

async function loadConditions(deps: Deps): Promise<void> {
  const workers = await startWorkers(deps, { queues: ["conditions"] });
  try {
    const cli = Bun.spawn([process.execPath, "scripts/mondo-load.ts", DEMO_CONDITIONS], {
      env: processEnvFor(deps.env),
      stdout: "pipe",
      stderr: "ignore",
    });
    if ((await cli.exited) !== 0) throw new Error("mondo:load failed");
  } finally {
    await workers.close();
  }
}
