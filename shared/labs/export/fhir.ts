import type { LabFlag, LabPanel, LabResult } from "../schemas";
import { ucumUnit } from "../units";
import {
  type DiagnosticReport,
  FHIR_SYSTEMS,
  type FhirQuantity,
  type FhirReferenceRange,
  type LabBundle,
  type Observation,
} from "./fhirSchema";

/**
 * Lab panels as a FHIR R4 `collection` Bundle: per panel a DiagnosticReport (its `fullUrl` is the
 * panel id) and an Observation per result, which the report lists in `result`. Observation ids are
 * UUIDv5 of the panel id and the result's position, so exporting twice yields the same `fullUrl`s
 * and an importer can tell a re-export from new results. There is no Patient: the export is the
 * caller's own record, and `subject` is optional in R4.
 */

/** LOINC's document code for a laboratory report. */
const LAB_REPORT_CODE = "11502-2";

const LABORATORY = {
  coding: [{ system: FHIR_SYSTEMS.observationCategory, code: "laboratory", display: "Laboratory" }],
};
const LAB_SERVICE = { coding: [{ system: FHIR_SYSTEMS.diagnosticService, code: "LAB", display: "Laboratory" }] };

/** HL7 v3 ObservationInterpretation codes and their displays. */
const INTERPRETATION: Record<LabFlag, { code: string; display: string }> = {
  low: { code: "L", display: "Low" },
  high: { code: "H", display: "High" },
  normal: { code: "N", display: "Normal" },
  abnormal: { code: "A", display: "Abnormal" },
};

const COMPARATOR = /^(<=|>=|<|>|≤|≥)\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))$/;
const COMPARATORS: Record<string, NonNullable<FhirQuantity["comparator"]>> = {
  "<": "<",
  "<=": "<=",
  "≤": "<=",
  ">": ">",
  ">=": ">=",
  "≥": ">=",
};

/** A number in the result's unit: UCUM-coded when the unit is one we know, else the printed unit alone. */
function quantity(value: number, unit: string | null): FhirQuantity {
  if (unit === null) return { value };
  const code = ucumUnit(unit);
  return code === undefined ? { value, unit } : { value, unit, system: FHIR_SYSTEMS.ucum, code };
}

/** `value[x]`: a Quantity for a number or a bound (`<0.5`), else the printed text. */
function observedValue(result: LabResult): Pick<Observation, "valueQuantity" | "valueString"> {
  if (result.value !== null) return { valueQuantity: quantity(result.value, result.unit) };
  const bound = COMPARATOR.exec(result.valueText.trim());
  if (bound) {
    const comparator = COMPARATORS[bound[1] as string];
    return { valueQuantity: { ...quantity(Number(bound[2]), result.unit), comparator } };
  }
  return { valueString: result.valueText };
}

/** Absent when the result has no bound and no text: R4 requires one of them (obs-3). */
function referenceRangeOf(result: LabResult): FhirReferenceRange[] | undefined {
  const { low, high, text } = result.referenceRange;
  if (low === null && high === null && text === null) return undefined;
  const range: FhirReferenceRange = {};
  if (low !== null) range.low = quantity(low, result.unit);
  if (high !== null) range.high = quantity(high, result.unit);
  if (text !== null) range.text = text;
  return [range];
}

function observationOf(panel: LabPanel, result: LabResult): Observation {
  const interpretation = result.flag ? INTERPRETATION[result.flag] : undefined;
  const referenceRange = referenceRangeOf(result);
  return {
    resourceType: "Observation",
    status: "final",
    category: [LABORATORY],
    code: {
      ...(result.code ? { coding: [{ system: FHIR_SYSTEMS.loinc, code: result.code }] } : {}),
      text: result.name,
    },
    effectiveDateTime: panel.collectedAt,
    issued: panel.createdAt,
    ...(panel.lab ? { performer: [{ display: panel.lab }] } : {}),
    ...observedValue(result),
    ...(interpretation
      ? { interpretation: [{ coding: [{ system: FHIR_SYSTEMS.interpretation, ...interpretation }] }] }
      : {}),
    ...(referenceRange ? { referenceRange } : {}),
  };
}

function reportOf(panel: LabPanel, resultUrls: string[]): DiagnosticReport {
  return {
    resourceType: "DiagnosticReport",
    status: "final",
    category: [LAB_SERVICE],
    code: { coding: [{ system: FHIR_SYSTEMS.loinc, code: LAB_REPORT_CODE }], text: "Laboratory report" },
    effectiveDateTime: panel.collectedAt,
    issued: panel.createdAt,
    ...(panel.lab ? { performer: [{ display: panel.lab }] } : {}),
    result: resultUrls.map((reference) => ({ reference })),
  };
}

/** The panels, in the order given, as one Bundle stamped `exportedAt`. */
export function panelsToFhirBundle(panels: readonly LabPanel[], exportedAt: Date): LabBundle {
  const entry: NonNullable<LabBundle["entry"]> = [];
  for (const panel of panels) {
    const observations = panel.results.map((result, index) => ({
      fullUrl: `urn:uuid:${Bun.randomUUIDv5(`result/${index}`, panel.id)}`,
      resource: observationOf(panel, result),
    }));
    const report = reportOf(
      panel,
      observations.map((observation) => observation.fullUrl),
    );
    entry.push({ fullUrl: `urn:uuid:${panel.id}`, resource: report }, ...observations);
  }
  // FHIR JSON has no empty arrays: no panels, no `entry`.
  const bundle: LabBundle = { resourceType: "Bundle", type: "collection", timestamp: exportedAt.toISOString() };
  return entry.length > 0 ? { ...bundle, entry } : bundle;
}
