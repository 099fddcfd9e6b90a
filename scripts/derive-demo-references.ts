/**
 * Derives the demo reference cache (shared/data/medications/demo-cache.json.gz) that `bun run start`
 * loads into PostgreSQL, so the medication endpoint answers for a few drugs on a machine that cannot
 * reach RxNav or openFDA. See shared/data/medications/PROVENANCE.md.
 *
 *   bun scripts/derive-demo-references.ts DIR-WITH-RECORDED-RESPONSES
 *
 * Labels: the recorded openFDA responses in DIR/openfda (PROVENANCE.md names them), parsed by the same
 * code as live answers. RxNorm: a minimal concept (RxCUI, name, term type, ingredient) per drug,
 * constructed from RxNorm's published identifiers — RxNav responses for these drugs were not
 * recorded — and marked as such in `source.note`. Keys are computed by the service's own functions,
 * so a lookup by the same name finds both entries. Deterministic: no clock is written (the seed
 * stamps the cache's `fetchedAt` when it loads; labels carry openFDA's `last_updated` date).
 */
import { join, resolve } from "node:path";
import { labelKey, medicationKey } from "../shared/jobs/payloads/referenceQueries";
import { classifyMedicationQuery, labelQueryFor } from "../shared/references/medication";
import { toFdaPart } from "../shared/references/openfda";
import { notFoundRxnorm } from "../shared/references/rxnav";
import type { RxnormPart } from "../shared/references/schemas";
import { usage } from "./lib/usage";

const ROOT = resolve(import.meta.dir, "..");
const IN_DIR = resolve(process.argv[2] ?? usage("bun scripts/derive-demo-references.ts DIR-WITH-RECORDED-RESPONSES"));
const OUT_FILE = join(ROOT, "shared/data/medications/demo-cache.json.gz");

/** Generic name → its RxNorm ingredient RxCUI, and the recorded label file for it. */
const DEMO = [
  { name: "aspirin", rxcui: "1191", label: "openfda/TFlowGit-tf-ads-bpa_aspirin.json" },
  { name: "zolpidem", rxcui: "39993", label: "openfda/TFlowGit-tf-ads-bpa_ambien.json" },
  { name: "phenylephrine", rxcui: "8163", label: "openfda/TFlowGit-tf-ads-bpa_sudafed.json" },
  { name: "adalimumab", rxcui: "327361", label: "openfda/FDA-openfda_deploy-tests_druglabel_search.0.response.json" },
];
const SEEDED_AT = "1970-01-01T00:00:00.000Z";
const NOTE =
  "Demo seed: constructed from RxNorm identifiers, not a recorded RxNav answer; replaced by RxNav's answer when reachable.";

const entries: { source: "rxnav" | "openfda"; key: string; value: unknown }[] = [];
for (const drug of DEMO) {
  const query = classifyMedicationQuery(drug.name);
  const rxnorm: RxnormPart = {
    ...notFoundRxnorm(SEEDED_AT),
    found: true,
    matchedBy: "name",
    rxcui: drug.rxcui,
    name: drug.name,
    tty: "IN",
    ingredients: [{ rxcui: drug.rxcui, name: drug.name, tty: "IN" }],
  };
  rxnorm.source = {
    ...rxnorm.source,
    url: `https://mor.nlm.nih.gov/RxNav/search?searchBy=RXCUI&searchTerm=${drug.rxcui}`,
    note: NOTE,
  };
  const recorded = JSON.parse(await Bun.file(join(IN_DIR, drug.label)).text());
  const lastUpdated: string | undefined = recorded.meta?.last_updated;
  const recordedAt = lastUpdated ? `${lastUpdated}T00:00:00.000Z` : SEEDED_AT;
  const fda = toFdaPart(recorded.results[0], "name", recordedAt, lastUpdated);
  fda.source = {
    ...fda.source,
    note: `${fda.source.note ?? ""}; demo seed from a recorded openFDA response`.replace(/^; /, ""),
  };
  entries.push({ source: "rxnav", key: medicationKey(query), value: rxnorm });
  entries.push({ source: "openfda", key: labelKey(labelQueryFor(query, rxnorm)), value: fda });
}
await Bun.write(OUT_FILE, Bun.gzipSync(new TextEncoder().encode(`${JSON.stringify(entries)}\n`)));
console.log(`Wrote ${entries.length} cache entries to ${OUT_FILE}`);
