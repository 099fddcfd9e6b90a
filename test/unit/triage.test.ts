import { describe, expect, test } from "bun:test";
import { entryNotice, triageEntry } from "../../shared/safety/triage";

/** An entry the chat records: its urgent symptom options and the presentations in its written words. */
describe("entries and their notice", () => {
  test("an entry's urgent option of its log's kind fires; the same id in a kind where it is not urgent does not", () => {
    expect(triageEntry({ symptoms: ["chest_pain"] }, "acute").signs.map((sign) => sign.id)).toEqual(["chest_pain"]);
    // "fever" is urgent in the pregnancy list only.
    expect(triageEntry({ symptoms: ["fever"] }, "pregnancy").signs.map((sign) => sign.id)).toEqual(["fever"]);
    expect(triageEntry({ symptoms: ["fever"] }, "custom").signs).toEqual([]);
    expect(triageEntry({ symptoms: ["bleeding"] }, "pregnancy").signs.map((sign) => sign.category)).toEqual([
      "urgent_symptom",
    ]);
  });

  test("the written words are read by the triage engine: a presentation from urgent up is a sign; mild words are not", () => {
    expect(triageEntry({ symptoms: ["headache"], note: "mild, better after water" }, "acute").signs).toEqual([]);
    const blood = triageEntry({ symptoms: ["cough"], note: "now I've been vomiting blood" }, "acute");
    expect(blood.signs.map((sign) => sign.category)).toContain("gi_bleeding");
    expect(blood.level).toBe("emergency");
    // Negated or past wording is not a sign.
    expect(triageEntry({ symptoms: [], note: "no chest pain today, just tired" }, "acute").signs).toEqual([]);
  });

  test("the notice's advice follows the level; an urgent option is an emergency; pregnancy adds the maternity unit", () => {
    const chest = entryNotice(triageEntry({ symptoms: ["chest_pain"] }, "acute"), "acute");
    expect(chest?.advice).toStartWith("This could be an emergency");
    expect(chest?.source).toBe("entry");
    const pregnant = entryNotice(triageEntry({ symptoms: ["bleeding"] }, "pregnancy"), "pregnancy");
    expect(pregnant?.advice).toContain("maternity unit");
    expect(entryNotice({ signs: [], level: "none" }, "acute")).toBeNull();
  });
});
