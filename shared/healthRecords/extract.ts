import type {
  AllergyIntolerance,
  Bundle,
  Condition,
  HumanName,
  Immunization,
  MedicationRequest,
  MedicationStatement,
  Observation,
  Patient,
  Resource,
} from "@medplum/fhirtypes";
import { allergyOf, conditionOf, immunizationOf, labResultOf, medicationOf, READ_ELEMENTS } from "./items";
import type { ImportedRecord, RecordSource, RecordSummary } from "./schemas";
import { validationProblems } from "./validation";

/** A person's name as the record gives it: its text, else given names then family. */
function nameText(names: HumanName[] | undefined): string | undefined {
  const name = names?.find((candidate) => candidate.use === "official") ?? names?.[0];
  if (!name) return undefined;
  const text = name.text?.trim() || [...(name.given ?? []), name.family].filter(Boolean).join(" ").trim();
  return text || undefined;
}

type KeptType = RecordSource["resourceType"];
const isKeptType = (type: string): type is KeptType => type in READ_ELEMENTS;

/** Whether a validation error's path is an element the mapper reads (or the resource as a whole). */
function touchesRead(type: KeptType, path: string): boolean {
  const element = path.replace(/\[\d+\].*$|\..*$/, "");
  return element === "" || READ_ELEMENTS[type].includes(element);
}

/**
 * The kept items of a Bundle's resources and the count of the rest by resource type. Each kept
 * resource is validated on its own (a converted C-CDA bundle never passes as a whole); one whose
 * read elements fail is dropped, and every failure is listed in the summary.
 */
export function extractRecord(bundle: Bundle, format: RecordSummary["format"], file?: string): ImportedRecord {
  const record: ImportedRecord = {
    conditions: [],
    medications: [],
    allergies: [],
    labResults: [],
    immunizations: [],
    summary: {
      format,
      patient: {},
      kept: { conditions: 0, medications: 0, allergies: 0, labResults: 0, immunizations: 0 },
      skipped: {},
      problems: [],
    },
  };
  const { summary } = record;
  const skip = (type: string) => {
    summary.skipped[type] = (summary.skipped[type] ?? 0) + 1;
  };
  for (const entry of bundle.entry ?? []) {
    const resource = entry.resource as Resource | undefined;
    if (!resource) continue;
    const type = resource.resourceType;
    if (type === "Patient" && summary.patient.name === undefined) {
      const patient = resource as Patient;
      const name = nameText(patient.name);
      summary.patient = { ...(name ? { name } : {}), ...(patient.birthDate ? { birthDate: patient.birthDate } : {}) };
    }
    if (
      !isKeptType(type) ||
      (type === "Observation" && !labResultOf(resource as Observation, () => ({ resourceType: type, resourceId: "" })))
    ) {
      skip(type);
      continue;
    }
    const resourceId = resource.id ?? entry.fullUrl ?? "";
    const problems = validationProblems(resource);
    const kept = !problems.some((problem) => touchesRead(type, problem.path));
    if (problems.length > 0) {
      summary.problems.push({
        resourceType: type,
        resourceId,
        kept,
        problems: problems.map((problem) => `${problem.path || type}: ${problem.message}`),
      });
    }
    if (!kept) {
      skip(type);
      continue;
    }
    const source = (date: string | undefined): RecordSource => ({
      ...(file ? { file } : {}),
      resourceType: type,
      resourceId,
      ...(date ? { date } : {}),
    });
    addItem(record, resource, source);
  }
  summary.kept = {
    conditions: record.conditions.length,
    medications: record.medications.length,
    allergies: record.allergies.length,
    labResults: record.labResults.length,
    immunizations: record.immunizations.length,
  };
  return record;
}

function addItem(record: ImportedRecord, resource: Resource, source: (date: string | undefined) => RecordSource): void {
  switch (resource.resourceType) {
    case "Condition":
      record.conditions.push(conditionOf(resource as Condition, source));
      break;
    case "MedicationRequest":
    case "MedicationStatement":
      record.medications.push(medicationOf(resource as MedicationRequest | MedicationStatement, source));
      break;
    case "AllergyIntolerance":
      record.allergies.push(allergyOf(resource as AllergyIntolerance, source));
      break;
    case "Observation": {
      const result = labResultOf(resource as Observation, source);
      if (result) record.labResults.push(result);
      break;
    }
    case "Immunization":
      record.immunizations.push(immunizationOf(resource as Immunization, source));
      break;
  }
}
