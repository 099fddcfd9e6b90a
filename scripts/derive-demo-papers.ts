/**
 * Derives the bundled demo slice of arXiv metadata (shared/data/papers/demo.jsonl.gz) from a full
 * snapshot, `papers.jsonl.gz`, so a checkout has real papers without the snapshot.
 * See shared/data/papers/PROVENANCE.md.
 *
 *   bun scripts/derive-demo-papers.ts DIR-WITH-papers.jsonl.gz
 *
 * Selection:
 *   1. every record with an abstract (non-null, non-blank) — the only ones with text beyond title and metadata;
 *   2. plus one record without abstract per (primary archive, year of first version) stratum,
 *      so the slice spans every archive and year in the source (and with them old-style ids such as
 *      hep-th/9901001, multi-version records, DOIs, journal-refs, report numbers). Within a stratum
 *      the record with the smallest sha1(id) wins: a fixed pseudo-random pick that does not depend
 *      on the order of the source file and does not favour "rich" records, so fill rates stay honest.
 * Output lines are the source lines byte for byte, in source order.
 * Deterministic: no clocks or randomness, the choice does not depend on line order, and the gzip
 * header carries no timestamp (Bun writes mtime 0) — same input and Bun version, same bytes.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { usage } from "./lib/usage";

type Paper = { id: string; categories: string; abstract: string | null; versions: { created: string }[] };

const ROOT = resolve(import.meta.dir, "..");
const IN_DIR = resolve(process.argv[2] ?? usage("bun scripts/derive-demo-papers.ts DIR-WITH-papers.jsonl.gz"));
const OUT_DIR = join(ROOT, "shared/data/papers");
const OUT_FILE = join(OUT_DIR, "demo.jsonl.gz");

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const hasAbstract = (p: Paper) => typeof p.abstract === "string" && p.abstract.trim() !== "";
// "astro-ph.CO hep-th" -> "astro-ph"; old archives such as chao-dyn or alg-geom stay themselves.
const primaryArchive = (p: Paper) => p.categories.split(/[ .]/, 1)[0] ?? "";
// Dates are RFC-822 strings ("Mon, 2 Apr 2007 19:18:42 GMT"); take the year textually, no Date parsing.
const firstYear = (p: Paper) => /\b(\d{4})\b/.exec(p.versions[0]?.created ?? "")?.[1] ?? "unknown";

const text = new TextDecoder().decode(Bun.gunzipSync(await Bun.file(join(IN_DIR, "papers.jsonl.gz")).bytes()));
const lines = text.split("\n").filter((l) => l !== "");

const keep = new Set<number>(); // indexes into `lines`
const pick = new Map<string, { index: number; hash: string }>(); // stratum -> chosen line
const seen = new Set<string>();
lines.forEach((line, index) => {
  const p = JSON.parse(line) as Paper;
  if (seen.has(p.id)) throw new Error(`duplicate id in source: ${p.id}`);
  seen.add(p.id);
  if (hasAbstract(p)) {
    keep.add(index);
    return;
  }
  const stratum = `${primaryArchive(p)}|${firstYear(p)}`;
  const hash = sha1(p.id);
  const current = pick.get(stratum);
  if (!current || hash < current.hash) pick.set(stratum, { index, hash });
});
const withAbstract = keep.size;
for (const { index } of pick.values()) keep.add(index);

const out = lines.filter((_, i) => keep.has(i)).join("\n");
const gz = Bun.gzipSync(new TextEncoder().encode(`${out}\n`), { level: 9 });
mkdirSync(OUT_DIR, { recursive: true });
writeFileSync(OUT_FILE, gz);
console.log(
  `${OUT_FILE}: ${keep.size} records (${withAbstract} with abstract + ${pick.size} strata samples), ` +
    `${gz.length} bytes, sha256 ${createHash("sha256").update(gz).digest("hex")}`,
);
