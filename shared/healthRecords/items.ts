import type {
  AllergyIntolerance,
  Condition,
  Immunization,
  Medication,
  MedicationRequest,
  MedicationStatement,
  Observation,
} from "@medplum/fhirtypes";
import { findAnalyte } from "../labs/analytes";
import { codeIn, codingsOf, nameOf, SYSTEMS, statusCode } from "./codes";
import type {
  ImportedAllergy,
  ImportedCondition,
  ImportedImmunization,
  ImportedLabResult,
  ImportedMedication,
  RecordSource,
} from "./schemas";

/**
 * One kept resource into the service's shape. Each mapper also names the elements it reads, so a
 * validation error there drops the item while an error elsewhere (a Condition.category sent as an
 * object, as some Synthea versions do) is only reported.
 */

const ACTIVE_CONDITION = new Set(["active", "recurrence", "relapse"]);
const ACTIVE_MEDICATION = new Set(["active", "intended", "on-hold"]);

export const READ_ELEMENTS: Record<RecordSource["resourceType"], string[]> = {
  Condition: ["code", "clinicalStatus", "onset[x]", "onsetDateTime", "abatement[x]", "recordedDate"],
  MedicationStatement: [
    "medication[x]",
    "medicationCodeableConcept",
    "contained",
    "status",
    "effective[x]",
    "dateAsserted",
  ],
  MedicationRequest: ["medication[x]", "medicationCodeableConcept", "contained", "status", "authoredOn"],
  AllergyIntolerance: ["code", "reaction", "criticality", "clinicalStatus", "recordedDate", "onset[x]"],
  Observation: ["code", "category", "value[x]", "valueQuantity", "effective[x]", "effectiveDateTime"],
  Immunization: ["vaccineCode", "status", "occurrence[x]", "occurrenceDateTime"],
};

/** HL7 v3 ObservationInterpretation codes as the lab flags the service keeps. */
const INTERPRETATION_FLAGS: Record<string, "low" | "high" | "normal" | "abnormal"> = {
  L: "low",
  LL: "low",
  H: "high",
  HH: "high",
  N: "normal",
  A: "abnormal",
  AA: "abnormal",
};

type Source = (date: string | undefined) => RecordSource;

export function conditionOf(resource: Condition, source: Source): ImportedCondition {
  const codes = codingsOf(resource.code);
  const clinicalStatus = statusCode(resource.clinicalStatus);
  const abated = resource.abatementDateTime !== undefined || resource.abatementString !== undefined;
  const onset = resource.onsetDateTime ?? resource.onsetPeriod?.start ?? resource.onsetString;
  return {
    name: nameOf(resource.code),
    codes,
    ...(clinicalStatus ? { clinicalStatus } : {}),
    active: clinicalStatus ? ACTIVE_CONDITION.has(clinicalStatus) : !abated,
    ...(onset ? { onset } : {}),
    source: source(onset ?? resource.recordedDate),
  };
}

/** A `medicationReference` to a contained Medication (`#id`), as converted C-CDA writes it. */
function containedMedication(resource: MedicationRequest | MedicationStatement): Medication | undefined {
  const reference = resource.medicationReference?.reference;
  if (!reference?.startsWith("#")) return undefined;
  return resource.contained?.find(
    (contained): contained is Medication =>
      contained.resourceType === "Medication" && contained.id === reference.slice(1),
  );
}

export function medicationOf(resource: MedicationRequest | MedicationStatement, source: Source): ImportedMedication {
  const concept = resource.medicationCodeableConcept ?? containedMedication(resource)?.code;
  const codes = codingsOf(concept);
  const rxnorm = codeIn(codes, SYSTEMS.rxnorm);
  const date =
    resource.resourceType === "MedicationRequest"
      ? resource.authoredOn
      : (resource.effectiveDateTime ?? resource.effectivePeriod?.start ?? resource.dateAsserted);
  const name = concept ? nameOf(concept) : (resource.medicationReference?.display ?? "unnamed");
  return {
    name,
    codes,
    ...(rxnorm ? { rxnorm } : {}),
    ...(resource.status ? { status: resource.status } : {}),
    active: ACTIVE_MEDICATION.has(resource.status ?? ""),
    source: source(date),
  };
}

export function allergyOf(resource: AllergyIntolerance, source: Source): ImportedAllergy {
  const reactions = (resource.reaction ?? []).flatMap((reaction) =>
    (reaction.manifestation ?? []).map((manifestation) => nameOf(manifestation)),
  );
  const clinicalStatus = statusCode(resource.clinicalStatus);
  return {
    substance: nameOf(resource.code),
    codes: codingsOf(resource.code),
    reactions,
    ...(resource.criticality ? { criticality: resource.criticality } : {}),
    ...(clinicalStatus ? { clinicalStatus } : {}),
    source: source(resource.onsetDateTime ?? resource.recordedDate),
  };
}

export function isLaboratory(resource: Observation): boolean {
  return (resource.category ?? []).some((category) =>
    (category.coding ?? []).some((coding) => coding.code === "laboratory"),
  );
}

/** A laboratory Observation with a value; a panel that only groups its members (hasMember) is not a result. */
export function labResultOf(resource: Observation, source: Source): ImportedLabResult | undefined {
  if (!isLaboratory(resource)) return undefined;
  const quantity = resource.valueQuantity;
  const valueText =
    resource.valueString ?? (resource.valueCodeableConcept ? nameOf(resource.valueCodeableConcept) : undefined);
  if (quantity?.value === undefined && valueText === undefined) return undefined;
  const loinc = codeIn(codingsOf(resource.code), SYSTEMS.loinc);
  const analyte = loinc ? findAnalyte(loinc)?.code : undefined;
  const unit = quantity?.unit ?? quantity?.code;
  const effective = resource.effectiveDateTime ?? resource.effectivePeriod?.start ?? resource.issued;
  const range = resource.referenceRange?.[0];
  const referenceRange = range
    ? {
        ...(range.low?.value !== undefined ? { low: range.low.value } : {}),
        ...(range.high?.value !== undefined ? { high: range.high.value } : {}),
        ...(range.text ? { text: range.text } : {}),
      }
    : undefined;
  const interpretation = codingsOf(resource.interpretation?.[0]).find((coding) => coding.code in INTERPRETATION_FLAGS);
  return {
    name: nameOf(resource.code),
    ...(loinc ? { loinc } : {}),
    ...(quantity?.value !== undefined ? { value: quantity.value } : {}),
    ...(valueText !== undefined ? { valueText } : {}),
    ...(unit ? { unit } : {}),
    ...(effective ? { effective } : {}),
    ...(analyte ? { analyte } : {}),
    ...(referenceRange && Object.keys(referenceRange).length > 0 ? { referenceRange } : {}),
    ...(interpretation ? { flag: INTERPRETATION_FLAGS[interpretation.code] } : {}),
    source: source(effective),
  };
}

export function immunizationOf(resource: Immunization, source: Source): ImportedImmunization {
  const codes = codingsOf(resource.vaccineCode);
  const cvx = codeIn(codes, SYSTEMS.cvx);
  const date = resource.occurrenceDateTime ?? resource.occurrenceString;
  return {
    vaccine: nameOf(resource.vaccineCode),
    codes,
    ...(cvx ? { cvx } : {}),
    ...(date ? { date } : {}),
    ...(resource.status ? { status: resource.status } : {}),
    source: source(date),
  };
}
