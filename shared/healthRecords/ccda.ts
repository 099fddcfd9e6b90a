import { convertCcdaToFhir, convertXmlToCcda } from "@medplum/ccda";
import type { Bundle } from "@medplum/fhirtypes";
import { AppError } from "../core/errors";
import { extractRecord } from "./extract";
import type { ImportedRecord } from "./schemas";

/**
 * The converter's output can carry C-CDA timestamps it did not finish turning into FHIR dateTimes:
 * seconds left empty (`2013-08-15T10:30:-0800`) and offsets without a colon (`-0800`). Both are
 * repaired in place, anywhere in the bundle, so the resources validate.
 */
export function repairDateTime(value: string): string {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d)(?::(\d\d(?:\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?$/.exec(value);
  if (!match) return value;
  const [, minutes, seconds, zone] = match;
  const offset = zone && zone !== "Z" && !zone.includes(":") ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  return `${minutes}:${seconds ?? "00"}${offset ?? ""}`;
}

function repairDates(node: unknown): unknown {
  if (typeof node === "string") return /^\d{4}-\d\d-\d\dT/.test(node) ? repairDateTime(node) : node;
  if (Array.isArray(node)) return node.map(repairDates);
  if (node && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, repairDates(value)]));
  }
  return node;
}

/** Converts a C-CDA document to a FHIR Bundle with Medplum's converter; unsupported sections are left out. */
export function convertCcda(xml: string): Bundle {
  let ccda: ReturnType<typeof convertXmlToCcda>;
  try {
    ccda = convertXmlToCcda(xml);
  } catch (error) {
    throw new AppError("RECORD_NOT_READABLE", "The C-CDA document is not well-formed XML.", { cause: error });
  }
  if (!ccda) throw new AppError("RECORD_NOT_READABLE", "The XML has no C-CDA ClinicalDocument.");
  // The parser leaves a single document-level participant as an object; the converter maps over it.
  const document = ccda as { participant?: unknown };
  if (document.participant && !Array.isArray(document.participant)) document.participant = [document.participant];
  try {
    return repairDates(convertCcdaToFhir(ccda, { ignoreUnsupportedSections: true })) as Bundle;
  } catch (error) {
    throw new AppError("RECORD_NOT_READABLE", "The C-CDA document could not be converted to FHIR.", { cause: error });
  }
}

/** A C-CDA document's conditions, medications, allergies, lab results and immunizations, and its summary. */
export function readCcda(xml: string, file?: string): ImportedRecord {
  return extractRecord(convertCcda(xml), "ccda", file);
}
