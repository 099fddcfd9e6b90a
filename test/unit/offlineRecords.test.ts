import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { healthInstructions } from "../../shared/chat/turn/prompt";
import { DEMO_REFERENCES_FILE } from "../../shared/core/shippedData";
import { readHealthRecord } from "../../shared/healthRecords/read";
import type { HealthProfile } from "../../shared/healthRecords/schemas";
import { allergyChecks } from "../../shared/llm/offline/allergyChecks";
import { immunizationAnswer, since } from "../../shared/llm/offline/immunizationAnswers";
import { analyze } from "../../shared/llm/offline/intent";
import { medicationRef } from "../../shared/llm/offline/labels";
import { firstCalls } from "../../shared/llm/offline/plan";
import { readTurn } from "../../shared/llm/offline/prompt";
import { NO_ALLERGIES, recordsAnswer } from "../../shared/llm/offline/recordAnswers";
import { recordsAsk } from "../../shared/llm/offline/records";
import { family, stemsOf } from "../../shared/llm/offline/stems";
import { antigensOf, findVaccines } from "../../shared/llm/offline/vaccines";
import { findMedications, findSymptoms, medicationNames } from "../../shared/llm/offline/vocabulary";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "../helpers/healthRecordSamples";

/**
 * The offline assistant on imported records: word families by stem, what a message asks of the
 * records, vaccines by what they protect against (CDC's CVX-to-antigen map), and the answers and
 * allergy checks composed from profiles built from the real sample records.
 */
const NAMES = medicationNames([]);
const TOOLS = new Set(["get_health_profile", "get_medication_reference", "get_condition_reference"]);

function question(text: string, conditions: { phrase: string; id: string; label: string }[] = []) {
  const mentions = findMedications(text, NAMES);
  return analyze(text, {
    medications: mentions.map((m) => m.name),
    brands: Object.fromEntries(mentions.filter((m) => m.said !== m.name).map((m) => [m.name, m.said])),
    conditions,
    symptoms: findSymptoms(text),
  });
}

const topics = (text: string) => question(text).records?.topics ?? [];

/** The profile the service serves after importing the sample (active items, newest dose first). */
function profileOf(path: string, file: string): HealthProfile {
  const record = readHealthRecord(readSample(path), file);
  const ids = <T>(items: T[]) => items.map((item, i) => ({ id: `id-${i}`, importId: "import", ...item }));
  return {
    consentGiven: true,
    consentedAt: "2026-01-05T10:00:00.000Z",
    updatedAt: "2026-01-05T10:00:00.000Z",
    conditions: ["Hypothyroidism"],
    medications: ["Aspirin 81 mg daily"],
    allergies: ids(record.allergies),
    importedConditions: ids(record.conditions.filter((c) => c.active)),
    importedMedications: ids(record.medications.filter((m) => m.active)),
    immunizations: ids(record.immunizations).sort((a, b) => (b.date ?? "").localeCompare(a.date ?? "")),
  };
}

const CCD = profileOf(CCDA_DOCUMENTS.hl7Ccd, "ccd.xml");
const JOHNNIE = profileOf(SYNTHEA_BUNDLES.johnnie, "johnnie.json");
const NIST = profileOf(CCDA_DOCUMENTS.nistAmbulatory, "nist.xml");
const NONE: HealthProfile = {
  ...CCD,
  allergies: [],
  importedConditions: [],
  importedMedications: [],
  immunizations: [],
};

/** The aspirin reference as the tool returns it, from the shipped demo cache (real RxNav and openFDA answers). */
function aspirinReference() {
  const entries = JSON.parse(gunzipSync(readFileSync(DEMO_REFERENCES_FILE)).toString("utf8")) as {
    source: string;
    key: string;
    value: { genericNames?: string[] };
  }[];
  const rxnorm = entries.find((e) => e.key === "name-aspirin")?.value;
  const fda = entries.find((e) => e.source === "openfda" && e.value.genericNames?.includes("ASPIRIN"))?.value;
  return medicationRef("aspirin", { rxnorm, fda });
}

describe("word families by stem", () => {
  test("the forms people write share a stem", () => {
    const allergy = family("allergy", "allergic");
    expect(stemsOf("allergies allergic allergy").every((s) => allergy.has(s))).toBe(true);
    const vaccine = family("vaccine", "immunization");
    expect(stemsOf("vaccinated vaccinations immunizations").every((s) => vaccine.has(s))).toBe(true);
  });
});

describe("what a message asks of the records", () => {
  test("allergies, immunizations and conditions, however they are worded", () => {
    for (const text of ["What am I allergic to?", "Do I have any allergies?", "any intolerances on file?"]) {
      expect(topics(text)).toEqual(["allergies"]);
    }
    for (const text of [
      "When was my last tetanus shot?",
      "What vaccines have I had?",
      "When did I last get a flu jab?",
      "Have I been immunised against measles?",
      "Did I have my Tdap?",
    ]) {
      expect(topics(text)).toEqual(["immunizations"]);
    }
    expect(topics("What conditions are in my records?")).toEqual(["conditions"]);
    expect(topics("Which diagnoses do I have on file?")).toEqual(["conditions"]);
  });

  test("not a report, a general question, or another injection", () => {
    expect(topics("I think I'm having an allergic reaction")).toEqual([]);
    expect(topics("What is a penicillin allergy?")).toEqual([]);
    expect(topics("When is my next insulin shot?")).toEqual([]);
    expect(topics("What is the usual dose of aspirin?")).toEqual([]);
    expect(topics("What is in my profile?")).toEqual([]);
  });

  test("what they ask whether they are allergic to, and the vaccine asked about", () => {
    expect(recordsAsk("Am I allergic to penicillin?", ["penicillin"])?.substances).toEqual(["penicillin"]);
    expect(recordsAsk("Do I have a penicillin allergy?", ["penicillin"])?.substances).toEqual(["penicillin"]);
    expect(recordsAsk("Am I allergic to bee stings or dust?")?.substances).toEqual(["bee stings", "dust"]);
    expect(recordsAsk("Am I allergic to anything?")?.substances).toEqual([]);
    expect(question("When did I last get a flu shot?").records?.vaccines.map((v) => v.antigens)).toEqual([
      ["Influenza"],
    ]);
  });

  test("the substance or disease asked about is not looked up as a medicine or condition", () => {
    const calls = (text: string, conditions: { phrase: string; id: string; label: string }[] = []) =>
      firstCalls(question(text, conditions), TOOLS).map((call) => `${call.toolName} ${JSON.stringify(call.input)}`);
    expect(calls("Am I allergic to penicillin?")).toEqual(["get_health_profile {}"]);
    const flu = [{ phrase: "flu", id: "MONDO:0005812", label: "influenza" }];
    expect(calls("When did I last get a flu shot?", flu)).toEqual(["get_health_profile {}"]);
    expect(calls("Can I take amoxicillin if I'm allergic to penicillin?")).toEqual([
      "get_health_profile {}",
      'get_medication_reference {"name":"amoxicillin"}',
    ]);
  });

  test("a medication question reads the profile only when the instructions say allergies are on file", () => {
    const q = question("What is the usual dose of aspirin?");
    expect(firstCalls(q, TOOLS).map((call) => call.toolName)).toEqual(["get_medication_reference"]);
    expect(firstCalls(q, TOOLS, false, true).map((call) => call.toolName)).toEqual([
      "get_health_profile",
      "get_medication_reference",
    ]);
  });

  test("the instructions the chat writes: today's date, and whether allergies are on file", () => {
    const turn = (profile: HealthProfile) => {
      const system = healthInstructions(profile, null, new Date("2026-03-14T09:00:00Z"));
      const prompt: LanguageModelV4Prompt = [
        { role: "system", content: system },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ];
      return readTurn(prompt);
    };
    expect(turn(CCD)).toMatchObject({ today: "2026-03-14", allergiesOnFile: true });
    expect(turn(JOHNNIE)).toMatchObject({ today: "2026-03-14", allergiesOnFile: false });
  });
});

describe("vaccines by what they protect against", () => {
  test("diseases, their everyday names and vaccine abbreviations", () => {
    const antigens = (text: string) => findVaccines(text).map((mention) => mention.antigens);
    expect(antigens("my tetanus shot")).toEqual([["Tetanus"]]);
    expect(antigens("a flu jab")).toEqual([["Influenza"]]);
    expect(antigens("whooping cough")).toEqual([["Pertussis"]]);
    expect(antigens("Tdap")).toEqual([["Tetanus", "Diphtheria", "Pertussis"]]);
    // "DTaP,IPV,Hib,HepB" also begins with DTaP: the abbreviation stands for what its products share.
    expect(antigens("DTaP")).toEqual([["Diphtheria", "Tetanus", "Pertussis"]]);
    expect(antigens("meningitis b")).toEqual([["Meningococcal B"]]);
  });

  test("an immunization's antigens: its names first, then its CVX codes", () => {
    const [td] = CCD.immunizations.filter((item) => item.vaccine.startsWith("Tetanus"));
    // HL7's CCD codes this Td dose as CVX 103, which CDC defines as meningococcal C conjugate.
    expect(td?.cvx).toBe("103");
    expect(antigensOf(td as never)).toEqual(["Tetanus", "Diphtheria"]);
    const ipv = JOHNNIE.immunizations.find((item) => item.vaccine === "IPV");
    expect(antigensOf(ipv as never)).toEqual(["Polio"]);
    const coded = { vaccine: "unnamed", codes: [{ system: "http://hl7.org/fhir/sid/cvx", code: "115" }] };
    expect(antigensOf(coded)).toEqual(["Tetanus", "Diphtheria", "Pertussis"]);
    expect(antigensOf({ vaccine: "x", codes: [], cvx: "09" })).toEqual(["Tetanus", "Diphtheria"]);
  });

  test("how long ago, by calendar", () => {
    expect(since("1998-12-15", "2026-11-29")).toBe("27 years and 11 months ago");
    expect(since("2018-11-02", "2026-11-29")).toBe("8 years ago");
    expect(since("2026-10-30", "2026-11-29")).toBe("30 days ago");
    expect(since("2026-10-29", "2026-11-29")).toBe("1 month ago");
    expect(since("2026-11-28", "2026-11-29")).toBe("yesterday");
    expect(since("2026-11-29", "2026-11-29")).toBe("today");
    expect(since("2027-01-01", "2026-11-29")).toBe("a date after today");
  });
});

describe("answers from the imported records", () => {
  const answer = (text: string, profile: HealthProfile) =>
    recordsAnswer(question(text), profile, "2026-11-29").join("\n");

  test("allergies: substance, reactions, the file; the one asked about; none recorded", () => {
    const all = answer("What am I allergic to?", CCD);
    for (const allergy of CCD.allergies)
      expect(all).toContain(`- ${allergy.substance} (reaction: ${allergy.reactions[0]}`);
    expect(all).toContain("from ccd.xml (AllergyIntolerance, 2011-02-15)");
    expect(answer("Am I allergic to penicillin?", CCD)).toContain(
      "Yes: your imported records list an allergy to penicillin: ALLERGENIC EXTRACT, PENICILLIN (reaction: Hives",
    );
    expect(answer("Am I allergic to amoxicillin?", CCD)).toContain(
      "Your imported records list no allergy to amoxicillin.",
    );
    expect(answer("Do I have any allergies?", JOHNNIE)).toBe(NO_ALLERGIES);
  });

  test("vaccines: the latest dose of the one asked about, how long ago, where from", () => {
    expect(answer("When was my last tetanus shot?", CCD)).toBe(
      "Your latest vaccine against tetanus on record: Tetanus and diphtheria toxoids - preservative free (CVX 103), given 1998-12-15 (27 years and 11 months ago).\nSource: ccd.xml (Immunization, 1998-12-15).",
    );
    const tetanus = answer("Have I been vaccinated against tetanus?", JOHNNIE);
    expect(tetanus).toContain("on record: DTaP (CVX 20), given 2014-02-28 (12 years and 9 months ago)");
    expect(tetanus).toContain("Earlier doses on record: DTaP (CVX 20) 2010-08-27, 2009-11-27");
    expect(answer("When did I last get a flu shot?", CCD)).toContain(
      "Influenza virus vaccine (CVX 88), given 1999-01-01",
    );
    expect(answer("Have I had the yellow fever vaccine?", CCD)).toContain(
      "Your imported records list no vaccine against yellow fever",
    );
    expect(immunizationAnswer(NONE, [], "2026-11-29")).toContain("No immunizations are recorded in your profile");
  });

  test("conditions: typed, then active from imported records", () => {
    expect(answer("What conditions are in my records?", CCD)).toBe(
      "Conditions you typed in your profile: Hypothyroidism.\nActive conditions from your imported records (2):\n- Pneumonia, from ccd.xml (Condition, 1998-01-01)\n- Bronchitis, from ccd.xml (Condition)",
    );
  });
});

describe("a medication checked against the allergies", () => {
  const aspirin = aspirinReference();

  test("by name, and by RxNorm code", () => {
    const [byName] = allergyChecks([aspirin], CCD, ["aspirin"]);
    expect(byName).toStartWith("Allergy check for aspirin: your imported records list an allergy to ASPIRIN");
    // NIST's sample codes its aspirin allergy as RxNorm 1191, the RxCUI RxNav gives aspirin.
    expect(allergyChecks([aspirin], NIST, ["aspirin"])[0]).toContain("an allergy to Aspirin (reaction: Hives");
  });

  test("by what its label names; none found is said for a drug asked about, and only then", () => {
    const ibuprofen = { ...CCD.allergies[0], substance: "Ibuprofen", codes: [] } as HealthProfile["allergies"][0];
    const [byLabel] = allergyChecks([aspirin], { ...CCD, allergies: [ibuprofen] }, ["aspirin"]);
    expect(byLabel).toContain("the aspirin label names it:");
    expect(byLabel).toContain("ibuprofen");
    const codeine = CCD.allergies.filter((allergy) => allergy.substance === "Codeine");
    expect(allergyChecks([aspirin], { ...CCD, allergies: codeine }, ["aspirin"])[0]).toContain(
      "none of the allergies in your imported records (Codeine) names aspirin",
    );
    expect(allergyChecks([aspirin], { ...CCD, allergies: codeine }, [])).toEqual([]);
    expect(allergyChecks([aspirin], JOHNNIE, ["aspirin"])).toEqual([]);
  });
});
