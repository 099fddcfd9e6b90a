import type { Bundle } from "@medplum/fhirtypes";
import { AppError } from "../core/errors";
import { extractRecord } from "./extract";
import type { ImportedRecord } from "./schemas";
import { validationProblems } from "./validation";

/** Bundle types that carry a patient's record; history and batch-response bundles do not. */
export const ACCEPTED_BUNDLE_TYPES = ["transaction", "collection", "document", "searchset"] as const;

const refuse = (message: string) => new AppError("RECORD_NOT_READABLE", message);

/**
 * Checks that `json` is an R4 Bundle of an accepted type whose entries each hold a resource with a
 * resource type, then validates the Bundle's own elements (entries' resources are validated one by
 * one during extraction, so one bad Observation does not refuse a whole record). Throws
 * `RECORD_NOT_READABLE` otherwise.
 */
export function assertFhirBundle(json: unknown): Bundle {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw refuse("The JSON is not a FHIR resource.");
  const resource = json as { resourceType?: unknown; type?: unknown; entry?: unknown };
  if (resource.resourceType !== "Bundle") {
    throw refuse(
      `The JSON is a ${typeof resource.resourceType === "string" ? resource.resourceType : "document"}, not a FHIR Bundle.`,
    );
  }
  if (!ACCEPTED_BUNDLE_TYPES.includes(resource.type as (typeof ACCEPTED_BUNDLE_TYPES)[number])) {
    throw refuse(
      `A Bundle of type ${String(resource.type)} is not a record; accepted: ${ACCEPTED_BUNDLE_TYPES.join(", ")}.`,
    );
  }
  const entries = resource.entry ?? [];
  if (!Array.isArray(entries)) throw refuse("Bundle.entry is not a list.");
  entries.forEach((entry, i) => {
    const type = (entry as { resource?: { resourceType?: unknown } } | null)?.resource?.resourceType;
    if (typeof type !== "string") throw refuse(`Bundle.entry[${i}] has no resource with a resourceType.`);
  });
  const shell = {
    ...(json as Bundle),
    entry: entries
      .map(({ resource: _, ...rest }: { resource: unknown }) => rest)
      .filter((rest: object) => Object.keys(rest).length > 0),
  };
  // Without the resources, the invariants that look into them (bdl-5 resource present, bdl-11 a
  // document's Composition first) cannot hold; the first is checked above, the second is not required.
  const problems = validationProblems(shell as Bundle).filter((problem) => !/\bbdl-(5|11)\b/.test(problem.message));
  if (problems.length > 0) {
    const first = problems[0] as { path: string; message: string };
    throw refuse(
      `The Bundle is not valid FHIR R4 (${problems.length} problems; ${first.path || "Bundle"}: ${first.message}).`,
    );
  }
  return json as Bundle;
}

/** A FHIR R4 Bundle's conditions, medications, allergies, lab results and immunizations, and its summary. */
export function readFhirBundle(json: unknown, file?: string): ImportedRecord {
  return extractRecord(assertFhirBundle(json), "fhir", file);
}
