import { databaseUrl, type Env } from "../../shared/core/env";
import { DEMO_REFERENCES_FILE } from "../../shared/core/shippedData";
import { createSql } from "../../shared/db/sql";
import { insertCachedReferenceIfMissing, type ReferenceSource } from "../../shared/references/cacheRepository";

/** Labels recorded from openFDA and constructed RxNorm concepts (provenance: medications/PROVENANCE.md in the data folder). */
export const DEMO_REFERENCES = DEMO_REFERENCES_FILE;

/**
 * Loads the demo reference cache so medication lookups of the demo drugs answer without network.
 * Existing entries (real answers) are kept. Returns how many entries were added.
 */
export async function seedDemoReferences(env: Env, file = DEMO_REFERENCES): Promise<number> {
  const entries = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(await Bun.file(file).bytes()))) as {
    source: ReferenceSource;
    key: string;
    value: unknown;
  }[];
  const sql = createSql(databaseUrl(env), { max: 1 });
  try {
    let added = 0;
    for (const entry of entries) if (await insertCachedReferenceIfMissing(sql, entry)) added += 1;
    return added;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
