import { h } from "./dom";
import { recordDate } from "./recordSections";

/** A health-record import as the API answers it, and how the profile page words what it kept and skipped. */

export interface RecordImport {
  id: string;
  fileId: string;
  filename: string;
  format: "fhir" | "ccda";
  patient: { name: string | null; birthDate: string | null };
  createdAt: string;
  kept: { conditions: number; medications: number; allergies: number; labResults: number; immunizations: number };
  skipped: Record<string, number>;
  problems: { resourceType: string; resourceId: string; kept: boolean; problems: string[] }[];
  labPanels: number;
  labResultsAlreadyStored: number;
}

const KINDS: [key: keyof RecordImport["kept"], one: string, many: string][] = [
  ["conditions", "condition", "conditions"],
  ["medications", "medication", "medications"],
  ["allergies", "allergy", "allergies"],
  ["labResults", "lab result", "lab results"],
  ["immunizations", "immunization", "immunizations"],
];

const FORMATS: Record<RecordImport["format"], string> = { fhir: "FHIR R4 Bundle", ccda: "C-CDA document" };

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "4 conditions", …, "11 lab results (1 lab panel)": one phrase per kind, zeros included. */
export function keptPhrases(record: RecordImport): string[] {
  return KINDS.map(([key, one, many]) => {
    const phrase = plural(record.kept[key], one, many);
    if (key !== "labResults" || record.kept.labResults === 0) return phrase;
    const again = record.labResultsAlreadyStored;
    const panels = plural(record.labPanels, "lab panel");
    return `${phrase} (${panels}${again > 0 ? `; ${again} already stored, left out` : ""})`;
  });
}

/** Skipped resources by type, the most first: ["Observation: 95", …]. */
export function skippedPhrases(record: RecordImport): string[] {
  return Object.entries(record.skipped)
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([type, n]) => `${type}: ${n}`);
}

/** "Johnnie679 Hermiston71, born Mar 20, 2009", or what of it the record gives. */
export function patientText(record: RecordImport): string {
  const name = record.patient.name ?? "A patient the record does not name";
  return record.patient.birthDate ? `${name}, born ${recordDate(record.patient.birthDate)}` : name;
}

function problemsText(record: RecordImport): string | null {
  if (record.problems.length === 0) return null;
  const dropped = record.problems.filter((problem) => !problem.kept).length;
  const which = plural(record.problems.length, "resource");
  return `${which} did not follow the FHIR R4 rules: ${dropped} left out, ${record.problems.length - dropped} kept (the problem touched nothing that is read).`;
}

/** What one import kept, per kind, and skipped, per resource type, under a heading with `headingId`. */
export function summaryView(record: RecordImport, headingId: string): HTMLElement[] {
  const skipped = skippedPhrases(record);
  const total = Object.values(record.skipped).reduce((sum, n) => sum + n, 0);
  const problems = problemsText(record);
  const view: HTMLElement[] = [
    h("h3", { id: headingId }, `What ${record.filename} held`),
    h("p", { class: "hint" }, `${patientText(record)} · ${FORMATS[record.format]}`),
    h("h4", {}, "Kept"),
    h("ul", { class: "counts" }, ...keptPhrases(record).map((phrase) => h("li", {}, phrase))),
    h("h4", {}, `Skipped, by resource type (${plural(total, "resource")})`),
    skipped.length > 0
      ? h("ul", { class: "counts" }, ...skipped.map((phrase) => h("li", {}, phrase)))
      : h("p", { class: "muted" }, "Nothing was skipped."),
  ];
  if (problems) view.push(h("p", { class: "hint" }, problems));
  return view;
}
