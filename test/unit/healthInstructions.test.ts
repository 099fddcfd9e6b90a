import { describe, expect, test } from "bun:test";
import { healthInstructions } from "../../shared/chat/turn/prompt";
import type { HealthProfile } from "../../shared/healthRecords/schemas";

const SOURCE = { file: "record.xml", resourceType: "AllergyIntolerance" as const, resourceId: "a1" };
const IDS = { id: "019aa2b4-0000-7000-8000-000000000001", importId: "019aa2b4-0000-7000-8000-000000000002" };

const profile: HealthProfile = {
  consentGiven: true,
  conditions: ["Asthma"],
  medications: ["Salbutamol inhaler"],
  consentedAt: "2026-11-01T00:00:00.000Z",
  updatedAt: "2026-11-01T00:00:00.000Z",
  allergies: [
    {
      ...IDS,
      substance: "Penicillin G benzathine",
      codes: [],
      reactions: ["Hives"],
      criticality: "high",
      source: SOURCE,
    },
  ],
  importedConditions: [
    { ...IDS, name: "Hypertension", codes: [], active: true, source: { ...SOURCE, resourceType: "Condition" } },
  ],
  importedMedications: [],
  immunizations: [
    {
      ...IDS,
      vaccine: "Td (adult) preservative free",
      codes: [],
      date: "2019-03-04T10:00:00Z",
      source: { ...SOURCE, resourceType: "Immunization" },
    },
    {
      ...IDS,
      vaccine: "Td (adult) preservative free",
      codes: [],
      date: "2009-03-04T10:00:00Z",
      source: { ...SOURCE, resourceType: "Immunization" },
    },
  ],
};

describe("the health assistant's instructions", () => {
  test("carry the imported allergies, conditions and the latest dose of each vaccine", () => {
    const text = healthInstructions(profile, null, new Date("2026-11-29T00:00:00Z"));
    expect(text).toContain("Penicillin G benzathine (reaction: Hives; criticality high)");
    expect(text).toContain("conditions from imported records: Hypertension");
    expect(text).toContain("Td (adult) preservative free 2019-03-04");
    expect(text).not.toContain("2009-03-04");
    expect(text).toContain("Check allergies before discussing a medication");
  });

  test("say when no allergy is recorded, and carry nothing without consent", () => {
    const none = { ...profile, allergies: [], importedConditions: [], immunizations: [] };
    expect(healthInstructions(none)).toContain("allergies: none recorded");
    const text = healthInstructions({ ...profile, consentGiven: false });
    expect(text).not.toContain("Penicillin");
    expect(text).toContain("has not shared a health profile");
  });
});
