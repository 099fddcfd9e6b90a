/**
 * Derives shared/data/medications/common-names.json, the medication names the offline assistant
 * recognises in a message, from three public lists (see shared/data/medications/PROVENANCE.md):
 *
 *   bun scripts/derive-medication-names.ts DRUGSATFDA_DIR WHO_EML_XML CPIC_DRUG_SQL
 *
 * DRUGSATFDA_DIR holds Products.txt and MarketingStatus.txt (FDA/openfda's drugsatfda.zip,
 * unzipped). Deterministic: sorted, no clocks. Brand words that are everyday English (found in the
 * shipped demo papers' titles and abstracts) are dropped, so "Clear" or "Focus" never read as drugs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "shared/data/medications/common-names.json");
const [fdaDir, whoXml, cpicSql] = process.argv.slice(2);
if (!fdaDir || !whoXml || !cpicSql) {
  console.error("usage: bun scripts/derive-medication-names.ts DRUGSATFDA_DIR WHO_EML_XML CPIC_DRUG_SQL");
  process.exit(2);
}

/** Salt and hydrate words: "atorvastatin calcium" is also found as "atorvastatin". */
const SALTS =
  /\b(hydrochloride|hcl|dihydrochloride|hydrobromide|sodium|disodium|potassium|calcium|magnesium|sulfate|sulphate|maleate|besylate|mesylate|tartrate|bitartrate|citrate|acetate|phosphate|succinate|fumarate|bromide|monohydrate|dihydrate|trihydrate|anhydrous|hyclate|propionate|dipropionate|furoate|valerate|hemifumarate|lactate|gluconate|nitrate|oxalate|pamoate|tosylate|xinafoate)\b/g;
/** Product-line words after a brand: "ADVAIR DISKUS 100/50", "ADDERALL XR 10". */
const LINE_WORDS =
  /\b(xr|er|sr|cr|la|xl|cd|ds|hfa|odt|kit|pak|in plastic container|preservative free|pfs|pen|injector|solostar|diskus|respiclick|liqui-gels|sprinkle|disperz|forte|maintena)\b.*$/;

const tsv = (file: string) => {
  const [head, ...rows] = readFileSync(file, "latin1").trim().split(/\r?\n/);
  const names = (head as string).split("\t");
  return rows.map((row) => Object.fromEntries(row.split("\t").map((value, i) => [names[i], value.trim()])));
};
const clean = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9 /+-]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
const base = (name: string) => clean(name.toLowerCase().replace(SALTS, " "));

function englishWords(): Set<string> {
  const text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(ROOT, "shared/data/papers/demo.jsonl.gz"))));
  const words = new Set<string>();
  for (const line of text.split("\n").filter(Boolean)) {
    const paper = JSON.parse(line) as { title?: string; abstract?: string };
    for (const word of `${paper.title ?? ""} ${paper.abstract ?? ""}`.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
      words.add(word);
    }
  }
  return words;
}

/** Drugs@FDA products on the market (prescription or over the counter) that are reference-listed drugs. */
function drugsAtFda(): { generic: Set<string>; brand: Map<string, Set<string>> } {
  const marketed = new Set(
    tsv(join(fdaDir as string, "MarketingStatus.txt"))
      .filter((row) => row.MarketingStatusID === "1" || row.MarketingStatusID === "2")
      .map((row) => `${row.ApplNo}/${row.ProductNo}`),
  );
  const generic = new Set<string>();
  const brand = new Map<string, Set<string>>();
  const shortened = new Map<string, Set<string>>();
  const addTo = (map: Map<string, Set<string>>, name: string, ingredients: string[]) =>
    map.set(name, new Set([...(map.get(name) ?? []), ...ingredients]));
  for (const row of tsv(join(fdaDir as string, "Products.txt"))) {
    if (row.ReferenceDrug !== "1" || !marketed.has(`${row.ApplNo}/${row.ProductNo}`)) continue;
    for (const ingredient of (row.ActiveIngredient ?? "").split(";")) {
      generic.add(clean(ingredient));
      // Only a salt after the name is dropped: "calcium carbonate" is not "carbonate".
      const stripped = base(ingredient);
      if (stripped.split(" ")[0] === clean(ingredient).split(" ")[0]) generic.add(stripped);
    }
    const name = clean(
      (row.DrugName ?? "")
        .toLowerCase()
        .replace(LINE_WORDS, "")
        .replace(/[\d.%/]+.*$/, ""),
    );
    const ingredients = (row.ActiveIngredient ?? "").split(";").map(base);
    addTo(brand, name.replace(/[-/+ ]+$/, ""), ingredients);
    // "allegra allergy" is asked about as "allegra" (a product named "advil" keeps its own ingredients).
    if (name.includes(" ")) addTo(shortened, (name.split(" ")[0] as string).replace(/-+$/, ""), ingredients);
  }
  for (const [name, ingredients] of shortened) if (!brand.has(name)) brand.set(name, ingredients);
  return { generic, brand };
}

const whoNames = [...readFileSync(whoXml, "utf8").matchAll(/<field name="active_component">([^<]+)</g)].flatMap(
  (match) => (match[1] as string).split(/\s*\+\s*|\s*\(|\)/).map(clean),
);
const cpicNames = [...readFileSync(cpicSql, "utf8").matchAll(/^RxNorm:\d+\t([^\t\n]+)/gm)].map((m) =>
  clean(m[1] as string),
);

/** RxNorm and label names of the demo reference cache (aspirin, zolpidem, phenylephrine, adalimumab). */
function demoCacheNames(): { generic: string[]; brand: [string, string][] } {
  const file = join(ROOT, "shared/data/medications/demo-cache.json.gz");
  const entries = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(file)))) as {
    value: { name?: string; brands?: { name: string }[]; brandNames?: string[]; genericNames?: string[] };
  }[];
  return {
    generic: entries.flatMap(({ value }) => [value.name ?? "", ...(value.genericNames ?? [])].map(base)),
    brand: entries.flatMap(({ value }) =>
      (value.brandNames ?? []).map((name) => [clean(name), base(value.genericNames?.[0] ?? "")] as [string, string]),
    ),
  };
}

const fda = drugsAtFda();
const demo = demoCacheNames();
const english = englishWords();
const usable = (name: string) => /^[a-z][a-z0-9 /+-]{3,60}$/.test(name) && !/\d{2,}/.test(name);
/** Substances people name for other reasons than a medicine question ("alcohol", "caffeine"). */
const NOT_ASKED_AS_MEDICINES = new Set(
  "alcohol ethanol cocaine condoms caffeine nicotine glucose dextrose water oxygen talc urea platinum barium protease lipase".split(
    " ",
  ),
);
const everyday = (name: string) => name.split(" ").every((word) => english.has(word));
// Everyday words ("oxygen", "water", "alcohol") name substances more often than medicines in a message.
const generic = new Set(
  [...fda.generic, ...whoNames, ...cpicNames, ...demo.generic].filter(
    (n) => usable(n) && !everyday(n) && !NOT_ASKED_AS_MEDICINES.has(n),
  ),
);
// Four-letter brands ("ella", "soma", "pred") are too often other words.
const brandOk = (name: string) =>
  usable(name) && name.length >= 5 && !NOT_ASKED_AS_MEDICINES.has(name) && !generic.has(name) && !everyday(name);
for (const [name, ingredient] of demo.brand) fda.brand.set(name, new Set([ingredient]));
/** Brand → its one active ingredient (what labels and RxNorm are searched by); "" for combinations. */
const brands = Object.fromEntries(
  [...fda.brand]
    .filter(([name]) => brandOk(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, ingredients]) => [name, ingredients.size === 1 ? ([...ingredients][0] as string) : ""]),
);
const sorted = (set: Set<string>) => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const out = {
  source:
    "See PROVENANCE.md: Drugs@FDA (FDA/openfda @ 2c152208), WHO EML via GNU Health, CPIC drug table, the demo reference cache.",
  generic: sorted(generic),
  brands,
};
writeFileSync(OUT, `${JSON.stringify(out, null, "\t")}\n`);
console.log(`${out.generic.length} generic names, ${Object.keys(brands).length} brand names → ${OUT}`);
