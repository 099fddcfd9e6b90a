/**
 * Checks and completes the curated lab analyte table, shared/data/labs/analytes.json (provenance:
 * shared/data/labs/PROVENANCE.md). Names, synonyms, units, molar masses and conventions are curated in the
 * JSON itself; this script derives the rest and refuses to write a table that breaks a rule:
 *
 * - each reported unit's scale from unit algebra and the molar mass, unless the entry is `curated`;
 * - every unit spelled as canonical UCUM, and (with --ucum) each derived scale equal to @lhncbc/ucum-lhc's;
 * - `checkedIn`: the open-licensed files whose copy of the LOINC code was found (inputs below);
 * - unique codes and unique folded names, at least 100 analytes.
 *
 * bun scripts/derive-lab-analytes.ts --synthea-csv FILE --gecco-dir DIR --miracum FILE --fhir-valuesets FILE
 *   [--ucum DIR]
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { foldName, type LabAnalyte, type ReportedUnit } from "../shared/labs/analytes";
import { ucumUnit, unitFactor } from "../shared/labs/units";

const TABLE = join(resolve(import.meta.dir, ".."), "shared/data/labs/analytes.json");

/**
 * Codes read by hand in two Synthea module files that are not in its sample CSV (Apache-2.0, recorded in
 * PROVENANCE.md): covid19/measurements_daily.json @ 05dd35f8 and covid19/measurements_frequent.json @ 27e5952f.
 */
const SYNTHEA_MODULE_CODES = `6690-2 789-8 718-7 4544-3 787-2 785-6 786-4 788-0 777-3 770-8 736-9 5905-5 713-8 706-2
  751-8 731-0 742-7 711-2 704-7 2744-1 2019-8 2703-7 1960-4 2708-6 2345-7 3094-0 2160-0 17861-6 2951-2 2823-3
  2075-0 2028-9 33914-3 2885-2 1751-7 1975-2 6768-6 1742-6 1920-8 48065-7 26881-3 2276-4 89579-7 14804-9 2532-0
  1988-5 2157-6 5902-2 6301-6 33959-8`.split(/\s+/);

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

function required(name: string): string {
  const value = argument(name);
  if (!value) throw new Error(`missing --${name} (usage at the top of this script)`);
  return value;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** LOINC codes present in each source, by the label `checkedIn` uses. */
function sourceCodes(): Record<string, Set<string>> {
  const csv = readFileSync(required("synthea-csv"), "utf8").split("\n");
  const gecco = filesUnder(required("gecco-dir"))
    .filter((path) => path.endsWith(".fsh"))
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
  const miracum = readFileSync(required("miracum"), "utf8").split("\n");
  const valuesets = JSON.parse(readFileSync(required("fhir-valuesets"), "utf8")) as {
    entry: { resource: { compose?: { include?: { system?: string; concept?: { code: string }[] }[] } } }[];
  };
  const fhir = valuesets.entry.flatMap(({ resource }) =>
    (resource.compose?.include ?? [])
      .filter((include) => include.system === "http://loinc.org")
      .flatMap((include) => (include.concept ?? []).map((concept) => concept.code)),
  );
  return {
    synthea: new Set([...csv.map((line) => line.split(",")[4] ?? ""), ...SYNTHEA_MODULE_CODES]),
    gecco: new Set([...gecco.matchAll(/\$loinc#(\d+-\d)\b/g)].map((match) => match[1] as string)),
    miracum: new Set(miracum.flatMap((line) => [line.split("\t")[0] ?? "", line.split("\t")[2] ?? ""])),
    "fhir-r4": new Set(fhir),
  };
}

interface UcumLhc {
  validateUnitString(unit: string): { status: string };
  convertUnitTo(
    from: string,
    value: number,
    to: string,
    options: { molecularWeight?: number; charge?: number },
  ): { status: string; toVal: number };
}

function loadUcum(): UcumLhc | undefined {
  const dir = argument("ucum");
  if (!dir) return undefined;
  const pkg = createRequire(join(dir, "package.json"))(dir) as { UcumLhcUtils: { getInstance(): UcumLhc } };
  return pkg.UcumLhcUtils.getInstance();
}

const round = (value: number) => Number(value.toPrecision(6));

function deriveUnits(analyte: LabAnalyte, ucum: UcumLhc | undefined, problems: string[]): ReportedUnit[] {
  return analyte.units.map((entry) => {
    if (ucumUnit(entry.unit) !== entry.unit) problems.push(`${analyte.code}: "${entry.unit}" is not canonical UCUM`);
    if (entry.curated) return entry;
    const scale = unitFactor(entry.unit, analyte.unit, analyte.molarMass, analyte.valence);
    if (scale === undefined) {
      problems.push(`${analyte.code}: no conversion from ${entry.unit} to ${analyte.unit}`);
      return entry;
    }
    if (ucum) {
      // ucum-lhc converts no arbitrary unit, not even m[IU]/L → u[IU]/mL, so [IU] is checked as U.
      const plain = (unit: string) => unit.replaceAll("[IU]", "U");
      const options = { molecularWeight: analyte.molarMass, charge: analyte.valence };
      const theirs = ucum.convertUnitTo(plain(entry.unit), 1, plain(analyte.unit), options);
      if (theirs.status !== "succeeded" || Math.abs(theirs.toVal / scale - 1) > 1e-9) {
        problems.push(
          `${analyte.code}: ${entry.unit} → ${analyte.unit} is ${scale} here, ucum-lhc says ${theirs.toVal}`,
        );
      }
    }
    return { unit: entry.unit, scale: round(scale) };
  });
}

function main(): void {
  const table = JSON.parse(readFileSync(TABLE, "utf8")) as { note: string; analytes: LabAnalyte[] };
  const sources = sourceCodes();
  const ucum = loadUcum();
  const problems: string[] = [];
  const names = new Map<string, string>();
  const codes = new Set<string>();
  for (const analyte of table.analytes) {
    if (codes.has(analyte.code)) problems.push(`${analyte.code}: duplicate code`);
    codes.add(analyte.code);
    if (ucumUnit(analyte.unit) !== analyte.unit) problems.push(`${analyte.code}: "${analyte.unit}" is not canonical`);
    if (ucum && ucum.validateUnitString(analyte.unit).status !== "valid") {
      problems.push(`${analyte.code}: ucum-lhc rejects "${analyte.unit}"`);
    }
    for (const name of [analyte.name, ...analyte.synonyms]) {
      const key = foldName(name);
      const owner = names.get(key);
      if (owner) problems.push(`"${name}" of ${analyte.code} folds like a name of ${owner}`);
      names.set(key, analyte.code);
    }
    analyte.units = deriveUnits(analyte, ucum, problems);
    analyte.checkedIn = Object.keys(sources).filter((label) => sources[label]?.has(analyte.code));
  }
  if (table.analytes.length < 100) problems.push(`only ${table.analytes.length} analytes`);
  if (problems.length > 0) throw new Error(`not written:\n${problems.join("\n")}`);
  const lines = table.analytes.map((analyte) => `\t\t${JSON.stringify(analyte)}`);
  writeFileSync(TABLE, `{\n\t"note": ${JSON.stringify(table.note)},\n\t"analytes": [\n${lines.join(",\n")}\n\t]\n}\n`);
  const unchecked = table.analytes.filter((analyte) => analyte.checkedIn.length === 0).map((a) => a.code);
  console.log(`${table.analytes.length} analytes written; code not found in any source: ${unchecked.join(" ")}`);
}

main();
