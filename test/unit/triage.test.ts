import { describe, expect, test } from "bun:test";
import { RED_FLAG_CATEGORIES } from "../../shared/safety/redFlags";
import { triageEntry, triageText, urgentNotice } from "../../shared/safety/triage";
import bank from "../fixtures/safety/red-flags.json";

const categoriesOf = (message: string) => [...new Set(triageText(message).map((sign) => sign.category))].sort();

describe("the red-flag bank", () => {
  test("has at least 60 messages, positives in every category and negatives", () => {
    expect(bank.messages.length).toBeGreaterThanOrEqual(60);
    const covered = new Set(bank.messages.flatMap((entry) => entry.categories));
    for (const category of RED_FLAG_CATEGORIES) {
      expect(covered).toContain(category);
    }
    expect(bank.messages.filter((entry) => entry.categories.length === 0).length).toBeGreaterThanOrEqual(15);
  });

  test("every message fires exactly its categories", () => {
    const wrong = bank.messages
      .map((entry) => ({
        message: entry.message,
        expected: [...entry.categories].sort(),
        got: categoriesOf(entry.message),
      }))
      .filter(({ expected, got }) => JSON.stringify(expected) !== JSON.stringify(got));
    expect(wrong).toEqual([]);
  });
});

describe("entries and the notice", () => {
  test("an entry's urgent option of its log's kind fires; the same id in a kind where it is not urgent does not", () => {
    expect(triageEntry({ symptoms: ["chest_pain"] }, "acute").map((sign) => sign.id)).toEqual(["chest_pain"]);
    // "fever" is urgent in the pregnancy list only.
    expect(triageEntry({ symptoms: ["fever"] }, "pregnancy").map((sign) => sign.id)).toEqual(["fever"]);
    expect(triageEntry({ symptoms: ["fever"] }, "custom")).toEqual([]);
    expect(triageEntry({ symptoms: ["bleeding"] }, "pregnancy").map((sign) => sign.category)).toEqual([
      "urgent_symptom",
    ]);
    expect(triageEntry({ symptoms: ["headache"], note: "mild, better after water" }, "acute")).toEqual([]);
    expect(
      triageEntry({ symptoms: ["cough"], note: "now coughing up blood" }, "acute").map((sign) => sign.category),
    ).toEqual(["bleeding"]);
  });

  test("the notice begins with urgent-care advice; self-harm adds crisis lines, pregnancy the maternity unit", () => {
    const chest = urgentNotice(triageText("crushing chest pain"), "message");
    expect(chest?.advice).toStartWith("Please seek urgent care.");
    expect(chest?.advice).toContain("emergency number");
    expect(urgentNotice(triageText("I want to kill myself"), "message")?.advice).toContain("988");
    expect(urgentNotice(triageText("pregnant and bleeding"), "message")?.advice).toContain("maternity unit");
    expect(urgentNotice([], "message")).toBeNull();
  });
});
