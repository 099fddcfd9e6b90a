/**
 * Derives the bundled demo slice of MONDO terms (shared/data/mondo/demo.jsonl.gz) from a full
 * extract, `mondo-terms.jsonl.gz` (its source: shared/data/mondo/PROVENANCE.md), so `bun run start`
 * resolves the conditions people try first without the full extract.
 *
 *   bun scripts/derive-demo-conditions.ts DIR-WITH-mondo-terms.jsonl.gz
 *
 * Selection, from SEEDS (common conditions, by exact MONDO label; a missing label stops the script):
 *   1. every seed, its direct children, and up to NEIGHBOURS other terms whose label contains the
 *      seed's label as whole words ("asthma, nasal polyps, and aspirin intolerance"), smallest
 *      sha1(id) first — a fixed pick that does not depend on line order;
 *   2. every ancestor of the terms above, up to the root, so parents always resolve.
 * Output lines are the source lines byte for byte, in source order. Deterministic: no clocks or
 * randomness, and the gzip header carries no timestamp.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { foldName } from "../shared/records/conditionTerm";
import { usage } from "./lib/usage";

const SEEDS = [
  "asthma",
  "diabetes mellitus",
  "type 1 diabetes mellitus",
  "type 2 diabetes mellitus",
  "migraine disorder",
  "influenza",
  "hypertensive disorder",
  "essential hypertension",
  "COVID-19",
  "cancer",
  "epilepsy",
  "HIV infectious disease",
  "Alzheimer disease",
  "Parkinson disease",
  "depressive disorder",
  "major depressive disorder",
  "pneumonia",
  "tuberculosis",
  "malaria",
  "common cold",
  "obesity disorder",
  "stroke disorder",
  "anemia",
  "iron deficiency anemia",
  "psoriasis",
  "rheumatoid arthritis",
  "osteoarthritis",
  "chronic obstructive pulmonary disease",
  "breast cancer",
  "lung cancer",
  "prostate cancer",
  "colorectal cancer",
  "cystic fibrosis",
  "sickle cell anemia",
  "Down syndrome",
  "celiac disease",
  "Crohn disease",
  "ulcerative colitis",
  "gout",
  "systemic lupus erythematosus",
  "atopic eczema",
  "measles",
  "chickenpox",
  "autism",
  "schizophrenia",
  "bipolar disorder",
  "osteoporosis",
  "hypothyroidism",
  "hyperthyroidism",
  "multiple sclerosis",
  "glaucoma",
  "cataract",
  "endometriosis",
  "Ehlers-Danlos syndrome",
  "myocardial infarction",
  "heart failure",
  "atrial fibrillation",
  "chronic kidney disease",
  "irritable bowel syndrome",
  "gastroesophageal reflux disease",
  "allergic rhinitis",
  "acne",
  "urticaria",
  "headache disorder",
  "dementia",
  "anxiety disorder",
  "sleep apnea syndrome",
  "insomnia",
  "fibromyalgia",
  "Lyme disease",
  "dengue disease",
  "rubella",
  "scarlet fever",
  "urinary tract infection",
  "appendicitis",
  "cholelithiasis",
  "nephrolithiasis",
  "bronchitis",
  "sinusitis",
  "otitis media",
  "conjunctivitis",
  "herpes zoster",
  "leukemia",
  "lymphoma",
  "melanoma",
  "hemophilia",
  "thalassemia",
  "Huntington disease",
  "amyotrophic lateral sclerosis",
  "Duchenne muscular dystrophy",
  "spina bifida",
  "cerebral palsy",
  "polycystic ovary syndrome",
  "preeclampsia",
  "gestational diabetes",
  "lupus erythematosus",
  "vitiligo",
  "rosacea",
];
const NEIGHBOURS = 8;

type Term = { id: string; label: string; parents: string[] };

const ROOT = resolve(import.meta.dir, "..");
const IN_DIR = resolve(process.argv[2] ?? usage("bun scripts/derive-demo-conditions.ts DIR-WITH-mondo-terms.jsonl.gz"));
const OUT_DIR = join(ROOT, "shared/data/mondo");
const OUT_FILE = join(OUT_DIR, "demo.jsonl.gz");

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const text = new TextDecoder().decode(Bun.gunzipSync(await Bun.file(join(IN_DIR, "mondo-terms.jsonl.gz")).bytes()));
const lines = text.split("\n").filter((line) => line !== "");
const terms = lines.map((line) => JSON.parse(line) as Term);
const byId = new Map(terms.map((term) => [term.id, term]));
const byLabel = new Map(terms.map((term) => [term.label, term]));
const children = new Map<string, string[]>();
for (const term of terms) {
  for (const parent of term.parents) children.set(parent, [...(children.get(parent) ?? []), term.id]);
}

const keep = new Set<string>();
for (const label of SEEDS) {
  const seed = byLabel.get(label);
  if (!seed) throw new Error(`seed not in the source: ${label}`);
  keep.add(seed.id);
  for (const child of children.get(seed.id) ?? []) keep.add(child);
  const words = ` ${foldName(label)} `;
  terms
    .filter((term) => term.id !== seed.id && ` ${foldName(term.label)} `.includes(words))
    .sort((a, b) => (sha1(a.id) < sha1(b.id) ? -1 : 1))
    .slice(0, NEIGHBOURS)
    .forEach((term) => {
      keep.add(term.id);
    });
}
const pending = [...keep];
while (pending.length > 0) {
  for (const parent of byId.get(pending.pop() as string)?.parents ?? []) {
    if (!keep.has(parent) && byId.has(parent)) {
      keep.add(parent);
      pending.push(parent);
    }
  }
}

const out = lines.filter((_, index) => keep.has((terms[index] as Term).id)).join("\n");
const gz = Bun.gzipSync(new TextEncoder().encode(`${out}\n`), { level: 9 });
mkdirSync(OUT_DIR, { recursive: true });
writeFileSync(OUT_FILE, gz);
console.log(
  `${OUT_FILE}: ${keep.size} terms from ${SEEDS.length} seeds, ${gz.length} bytes, ` +
    `sha256 ${createHash("sha256").update(gz).digest("hex")}`,
);
