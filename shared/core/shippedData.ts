import { join } from "node:path";

/**
 * The demo data files shipped in the repository's data folder (beside core/), as absolute paths;
 * each has its provenance in the PROVENANCE.md beside it. Resolved here, so no other file climbs
 * directories to find them.
 */
const here = join(import.meta.dir, "..", "data");

/** The real arXiv slice: 3,035 records. */
export const DEMO_PAPERS_FILE = join(here, "papers", "demo.jsonl.gz");
/** The real MONDO slice. */
export const DEMO_CONDITIONS_FILE = join(here, "mondo", "demo.jsonl.gz");
/** Labels recorded from openFDA and constructed RxNorm concepts. */
export const DEMO_REFERENCES_FILE = join(here, "medications", "demo-cache.json.gz");
