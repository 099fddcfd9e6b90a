import { readCcda } from "./ccda";
import { detectRecordFormat } from "./detect";
import { readFhirBundle } from "./fhir";
import type { ImportedRecord } from "./schemas";

/**
 * A record file's kept items and summary, whichever format its content is (a FHIR R4 Bundle or a
 * C-CDA document). Throws `RECORD_NOT_READABLE` for anything else or a Bundle that fails validation.
 */
export function readHealthRecord(bytes: Uint8Array | string, filename?: string): ImportedRecord {
  const detected = detectRecordFormat(bytes);
  return detected.format === "fhir" ? readFhirBundle(detected.json, filename) : readCcda(detected.xml, filename);
}
