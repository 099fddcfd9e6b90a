import { byId, h } from "./dom";

/**
 * The profile's sections that imported health records fill (`GET /api/health/profile`): allergies,
 * conditions and medications with their codes, immunizations with their dates. Each is a table
 * naming the file it came from, or a line saying there is nothing yet.
 */

interface Coding {
  system?: string;
  code: string;
  display?: string;
}

interface Stored {
  id: string;
  importId: string;
  codes: Coding[];
  source: { file?: string; resourceType: string; resourceId: string; date?: string };
}

export interface RecordSections {
  allergies: (Stored & { substance: string; reactions: string[]; criticality?: string; clinicalStatus?: string })[];
  importedConditions: (Stored & { name: string; clinicalStatus?: string; onset?: string })[];
  importedMedications: (Stored & { name: string; status?: string })[];
  immunizations: (Stored & { vaccine: string; cvx?: string; date?: string; status?: string })[];
}

/** Short names of the code systems records use; another system is shown by its URI. */
const SYSTEMS: Record<string, string> = {
  "http://snomed.info/sct": "SNOMED CT",
  "http://hl7.org/fhir/sid/icd-10": "ICD-10",
  "http://hl7.org/fhir/sid/icd-10-cm": "ICD-10-CM",
  "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
  "http://loinc.org": "LOINC",
  "http://hl7.org/fhir/sid/cvx": "CVX",
  "http://fdasis.nlm.nih.gov": "UNII",
  "http://hl7.org/fhir/sid/ndc": "NDC",
};

const codesText = (codes: Coding[]) =>
  codes.map((coding) => (coding.system ? `${SYSTEMS[coding.system] ?? coding.system} ${coding.code}` : coding.code));

/**
 * A record's date as it gives it: the day of a full timestamp (records carry their own zone, so no
 * conversion to the browser's), a partial date ("2010", "2010-05") as written.
 */
export function recordDate(value: string | undefined): string {
  if (!value) return "—";
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(value)?.[1];
  if (!day) return value;
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" });
}

const fileOf = (item: Stored) => item.source.file ?? "an imported record";

type Row = [name: string, ...cells: (string | string[])[]];

/** A cell of several values (codes, reactions) as a list, one per line. */
function cell(value: string | string[]) {
  if (typeof value === "string") return h("td", {}, value);
  if (value.length === 0) return h("td", {}, "—");
  return h("td", {}, h("ul", { class: "plain-list" }, ...value.map((one) => h("li", {}, one))));
}

/** A table in its own scrolling box (a named tab stop, so a keyboard can scroll it on a phone). */
function table(id: string, caption: string, columns: string[], rows: Row[]): HTMLElement {
  const captionId = `${id}-caption`;
  const body = rows.map(([name, ...cells]) => h("tr", {}, h("th", { scope: "row" }, name), ...cells.map(cell)));
  return h(
    "div",
    { class: "table-wrap", tabindex: "0", role: "group", "aria-labelledby": captionId },
    h(
      "table",
      { class: "record-table" },
      h("caption", { class: "visually-hidden", id: captionId }, caption),
      h("thead", {}, h("tr", {}, ...columns.map((column) => h("th", { scope: "col" }, column)))),
      h("tbody", {}, ...body),
    ),
  );
}

function fill(id: string, caption: string, columns: string[], rows: Row[]): void {
  const box = byId(id);
  box.dataset.count = String(rows.length);
  if (rows.length === 0) box.replaceChildren(h("p", { class: "muted" }, box.dataset.empty ?? "None."));
  else box.replaceChildren(table(id, caption, columns, rows));
}

/** Shows the four sections; empty ones say so. */
export function showRecordSections(sections: RecordSections): void {
  fill(
    "allergies",
    "Allergies from imported records",
    ["Substance", "Reactions", "Criticality", "From"],
    sections.allergies.map((a) => [a.substance, a.reactions, a.criticality ?? "not given", fileOf(a)]),
  );
  fill(
    "imported-conditions",
    "Active conditions from imported records",
    ["Condition", "Codes", "Since", "From"],
    sections.importedConditions.map((c) => [c.name, codesText(c.codes), recordDate(c.onset), fileOf(c)]),
  );
  fill(
    "imported-medications",
    "Active medications from imported records",
    ["Medication", "Codes", "Status", "From"],
    sections.importedMedications.map((m) => [m.name, codesText(m.codes), m.status ?? "—", fileOf(m)]),
  );
  fill(
    "immunizations",
    "Immunizations from imported records, newest first",
    ["Vaccine", "Date", "Code", "From"],
    sections.immunizations.map((i) => [i.vaccine, recordDate(i.date), i.cvx ? `CVX ${i.cvx}` : "—", fileOf(i)]),
  );
}

export const NO_RECORD_SECTIONS: RecordSections = {
  allergies: [],
  importedConditions: [],
  importedMedications: [],
  immunizations: [],
};
