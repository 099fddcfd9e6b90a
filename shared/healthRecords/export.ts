import type {
  AllergyIntolerance,
  Bundle,
  BundleEntry,
  CodeableConcept,
  Condition,
  Immunization,
  MedicationStatement,
  Patient,
  Resource,
} from "@medplum/fhirtypes";
import type { Ctx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { requireConsentToRead } from "../health/consent";
import { getProfile } from "../health/profile";
import { allPanels } from "../labs/export";
import { panelsToFhirBundle } from "../labs/export/fhir";
import { latestPatient, listItems, type StoredItemRow } from "./repository";
import type { Coding, ImportedAllergy, ImportedCondition, ImportedImmunization, ImportedMedication } from "./schemas";
import { conceptKey, unique } from "./sections";

/**
 * The whole health record as one FHIR R4 `collection` Bundle: a Patient (named as the latest
 * import names them, else anonymous; never an account identifier), the conditions and medications
 * typed in the profile and those imported (active or not), allergies, immunizations, and every lab
 * panel as a DiagnosticReport with its Observations. Every resource validates against R4
 * (test/integration/healthRecords/recordExport.test.ts), and importing the Bundle again keeps the
 * same items. Resource ids are fresh `urn:uuid`s except the lab export's, which are stable.
 */

const CLINICAL = {
  condition: "http://terminology.hl7.org/CodeSystem/condition-clinical",
  allergy: "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical",
} as const;

/** R4 dateTime (a partial date, or a full time with a zone): anything else goes in a string element. */
const FHIR_DATE_TIME =
  /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00)))?)?)?$/;
const isDateTime = (text: string | undefined): text is string => text !== undefined && FHIR_DATE_TIME.test(text);

const MEDICATION_STATEMENT_STATUS = new Set([
  "active",
  "completed",
  "entered-in-error",
  "intended",
  "stopped",
  "on-hold",
  "unknown",
  "not-taken",
]);
/** MedicationRequest statuses that MedicationStatement lacks. */
const STATUS_AS_STATEMENT: Record<string, string> = { cancelled: "stopped", draft: "intended" };

function concept(name: string, codes: Coding[]): CodeableConcept {
  return {
    ...(codes.length > 0
      ? {
          coding: codes.map((c) => ({
            ...(c.system ? { system: c.system } : {}),
            code: c.code,
            ...(c.display ? { display: c.display } : {}),
          })),
        }
      : {}),
    text: name,
  };
}

function conditionResource(item: ImportedCondition, subject: string): Condition {
  const status = item.clinicalStatus ?? (item.active ? "active" : "inactive");
  return {
    resourceType: "Condition",
    clinicalStatus: { coding: [{ system: CLINICAL.condition, code: status }] },
    code: concept(item.name, item.codes),
    subject: { reference: subject },
    ...(isDateTime(item.onset) ? { onsetDateTime: item.onset } : item.onset ? { onsetString: item.onset } : {}),
  };
}

function medicationResource(item: ImportedMedication, subject: string): MedicationStatement {
  const given = item.status ?? (item.active ? "active" : "unknown");
  const status = STATUS_AS_STATEMENT[given] ?? (MEDICATION_STATEMENT_STATUS.has(given) ? given : "unknown");
  const date = item.source.date;
  return {
    resourceType: "MedicationStatement",
    status: status as MedicationStatement["status"],
    medicationCodeableConcept: concept(item.name, item.codes),
    subject: { reference: subject },
    ...(isDateTime(date) ? { effectiveDateTime: date } : {}),
  };
}

function allergyResource(item: ImportedAllergy, patient: string): AllergyIntolerance {
  const date = item.source.date;
  return {
    resourceType: "AllergyIntolerance",
    // Required unless entered in error (ait-1): a listed allergy without a status is taken as active.
    clinicalStatus: { coding: [{ system: CLINICAL.allergy, code: item.clinicalStatus ?? "active" }] },
    code: concept(item.substance, item.codes),
    patient: { reference: patient },
    ...(item.criticality ? { criticality: item.criticality as AllergyIntolerance["criticality"] } : {}),
    ...(isDateTime(date) ? { recordedDate: date } : {}),
    ...(item.reactions.length > 0 ? { reaction: [{ manifestation: item.reactions.map((text) => ({ text })) }] } : {}),
  };
}

function immunizationResource(item: ImportedImmunization, patient: string): Immunization {
  const status = item.status === "not-done" || item.status === "entered-in-error" ? item.status : "completed";
  return {
    resourceType: "Immunization",
    status,
    vaccineCode: concept(item.vaccine, item.codes),
    patient: { reference: patient },
    ...(isDateTime(item.date) ? { occurrenceDateTime: item.date } : { occurrenceString: item.date ?? "unknown" }),
  };
}

/** A profile line typed by the person: a concept with text only, active. */
const typed = (name: string): { name: string; codes: Coding[]; active: true } => ({ name, codes: [], active: true });

/** Each stored item once: the same concept and date from two imports is one resource. */
function itemKey(row: StoredItemRow): string {
  const item = row.item as {
    name?: string;
    substance?: string;
    vaccine?: string;
    codes: Coding[];
    date?: string;
    onset?: string;
  };
  return `${row.kind}|${conceptKey(item.name ?? item.substance ?? item.vaccine ?? "", item.codes)}|${item.date ?? item.onset ?? ""}`;
}

/** The caller's health record as a FHIR R4 Bundle. Consent is the caller's to check. */
export async function healthRecordBundle(
  ctx: Pick<Ctx, "sql" | "accountId">,
  exportedAt = new Date(),
): Promise<Bundle> {
  const [profile, rows, panels, named] = await Promise.all([
    getProfile(ctx),
    db(listItems(ctx.sql, ctx.accountId, ["condition", "medication", "allergy", "immunization"])),
    allPanels(ctx),
    db(latestPatient(ctx.sql, ctx.accountId)),
  ]);
  const patientUrl = `urn:uuid:${Bun.randomUUIDv7()}`;
  const patient: Patient = {
    resourceType: "Patient",
    ...(named?.name ? { name: [{ text: named.name }] } : {}),
    ...(named?.birthDate && isDateTime(named.birthDate) ? { birthDate: named.birthDate.slice(0, 10) } : {}),
  };
  const resources: Resource[] = [
    ...profile.conditions.map((name) =>
      conditionResource({ ...typed(name), source: { resourceType: "Condition", resourceId: "" } }, patientUrl),
    ),
    ...profile.medications.map((name) =>
      medicationResource(
        { ...typed(name), status: "active", source: { resourceType: "MedicationStatement", resourceId: "" } },
        patientUrl,
      ),
    ),
  ];
  for (const row of unique(rows, itemKey)) {
    if (row.kind === "condition") resources.push(conditionResource(row.item as ImportedCondition, patientUrl));
    if (row.kind === "medication") resources.push(medicationResource(row.item as ImportedMedication, patientUrl));
    if (row.kind === "allergy") resources.push(allergyResource(row.item as ImportedAllergy, patientUrl));
    if (row.kind === "immunization") resources.push(immunizationResource(row.item as ImportedImmunization, patientUrl));
  }
  const labs = (panelsToFhirBundle(panels, exportedAt).entry ?? []) as BundleEntry[];
  // Lab results name no subject in the lab-only export; here they are the patient's.
  for (const entry of labs) (entry.resource as { subject?: { reference: string } }).subject = { reference: patientUrl };
  const entry: BundleEntry[] = [
    { fullUrl: patientUrl, resource: patient },
    ...resources.map((resource) => ({ fullUrl: `urn:uuid:${Bun.randomUUIDv7()}`, resource })),
    ...labs,
  ];
  return { resourceType: "Bundle", type: "collection", timestamp: exportedAt.toISOString(), entry };
}

/** The caller's health record as a file to download (`application/fhir+json`). Needs consent. */
export async function exportHealthRecord(
  ctx: Pick<Ctx, "sql" | "accountId">,
): Promise<{ filename: string; contentType: string; body: string }> {
  await requireConsentToRead(
    ctx.sql,
    ctx.accountId,
    "Exporting health data needs consent: save the profile with consentGiven: true first.",
  );
  const exportedAt = new Date();
  return {
    filename: `health-record-${exportedAt.toISOString().slice(0, 10)}.fhir.json`,
    contentType: "application/fhir+json; fhirVersion=4.0; charset=utf-8",
    body: JSON.stringify(await healthRecordBundle(ctx, exportedAt)),
  };
}
