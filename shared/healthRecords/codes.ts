import type { CodeableConcept, Coding as FhirCoding } from "@medplum/fhirtypes";
import type { Coding } from "./schemas";

/** Code systems by their canonical FHIR URIs. */
export const SYSTEMS = {
  snomed: "http://snomed.info/sct",
  icd10: "http://hl7.org/fhir/sid/icd-10",
  icd10cm: "http://hl7.org/fhir/sid/icd-10-cm",
  rxnorm: "http://www.nlm.nih.gov/research/umls/rxnorm",
  loinc: "http://loinc.org",
  cvx: "http://hl7.org/fhir/sid/cvx",
} as const;

/**
 * Other spellings of a system seen in real exports. CVX's canonical URI is HL7's; NUCC's address is
 * a common mistake, and converted C-CDA may carry an OID.
 */
const ALIASES: Record<string, string> = {
  "http://nucc.org/cvx": SYSTEMS.cvx,
  "urn:oid:2.16.840.1.113883.12.292": SYSTEMS.cvx,
  // HL7's C-CDA R1.1 samples write CVX as 2.16.840.1.113883.6.59 (codeSystemName "CVX").
  "urn:oid:2.16.840.1.113883.6.59": SYSTEMS.cvx,
  "urn:oid:2.16.840.1.113883.6.88": SYSTEMS.rxnorm,
  "urn:oid:2.16.840.1.113883.6.1": SYSTEMS.loinc,
  "urn:oid:2.16.840.1.113883.6.96": SYSTEMS.snomed,
  "urn:oid:2.16.840.1.113883.6.90": SYSTEMS.icd10cm,
};

export function normaliseSystem(system: string | undefined): string | undefined {
  return system === undefined ? undefined : (ALIASES[system] ?? system);
}

/** The concept's codings with a code, systems normalised. */
export function codingsOf(concept: CodeableConcept | undefined): Coding[] {
  return (concept?.coding ?? [])
    .filter((coding): coding is FhirCoding & { code: string } => typeof coding.code === "string" && coding.code !== "")
    .map((coding) => {
      const system = normaliseSystem(coding.system);
      return {
        code: coding.code,
        ...(system ? { system } : {}),
        ...(coding.display ? { display: coding.display } : {}),
      };
    });
}

/** The first code of one of these systems. */
export function codeIn(codings: Coding[], ...systems: string[]): string | undefined {
  return codings.find((coding) => coding.system !== undefined && systems.includes(coding.system))?.code;
}

/** A name for the concept: its text, else the first display, else the first code. */
export function nameOf(concept: CodeableConcept | undefined, fallback = "unnamed"): string {
  const text = concept?.text?.trim();
  if (text) return text;
  const display = concept?.coding?.find((coding) => coding.display?.trim())?.display?.trim();
  return display ?? concept?.coding?.find((coding) => coding.code)?.code ?? fallback;
}

/** The first code of a status concept (clinicalStatus and the like). */
export function statusCode(concept: CodeableConcept | undefined): string | undefined {
  return concept?.coding?.find((coding) => coding.code)?.code;
}
