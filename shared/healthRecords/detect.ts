import { AppError } from "../core/errors";

export type RecordFormat = { format: "fhir"; json: unknown } | { format: "ccda"; xml: string };

/** HL7 v3's namespace, which every C-CDA's root ClinicalDocument element carries. */
const HL7_V3 = "urn:hl7-org:v3";

/**
 * Which format a file holds, by its content (never its name): JSON whose `resourceType` is Bundle is
 * FHIR; XML whose root element is an HL7 v3 `ClinicalDocument` is C-CDA. Anything else is refused
 * with `RECORD_NOT_READABLE`, naming what was found.
 */
export function detectRecordFormat(bytes: Uint8Array | string): RecordFormat {
  const text = (typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: false }).decode(bytes)).replace(
    /^\uFEFF/,
    "",
  );
  const start = text.trimStart();
  if (start.startsWith("{")) {
    let json: unknown;
    try {
      json = JSON.parse(start);
    } catch {
      throw new AppError("RECORD_NOT_READABLE", "The file starts like JSON but is not valid JSON.");
    }
    const type = (json as { resourceType?: unknown }).resourceType;
    if (type !== "Bundle") {
      throw new AppError(
        "RECORD_NOT_READABLE",
        typeof type === "string" ? `The JSON is a FHIR ${type}, not a Bundle.` : "The JSON is not a FHIR Bundle.",
      );
    }
    return { format: "fhir", json };
  }
  if (start.startsWith("<")) {
    const root = /<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)(\s[^>]*)?>/.exec(
      start.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, ""),
    );
    if (root?.[1] === "ClinicalDocument" && (root[2] ?? "").includes(HL7_V3)) return { format: "ccda", xml: start };
    throw new AppError(
      "RECORD_NOT_READABLE",
      `The XML's root is ${root?.[1] ?? "missing"}, not an HL7 v3 ClinicalDocument (C-CDA).`,
    );
  }
  throw new AppError("RECORD_NOT_READABLE", "The file is neither JSON (a FHIR Bundle) nor XML (a C-CDA document).");
}
