import { describe, expect, test } from "bun:test";
import { imageSize, parseAttachedText } from "../../shared/llm/offline/attachments";
import { analyze, observationOf } from "../../shared/llm/offline/intent";
import { firstCalls, followUpCalls } from "../../shared/llm/offline/plan";
import {
  findMedications,
  findSymptoms,
  medicationNames,
  medicationOf,
  type SymptomMention,
} from "../../shared/llm/offline/vocabulary";
import { makePng } from "../helpers/files";

/** The offline model's parts that need no services: names, intents, plans, image headers. */
const NAMES = medicationNames([{ name: "humira", generic: "adalimumab" }]);
const ALL_TOOLS = new Set([
  "get_health_profile",
  "list_health_logs",
  "summarize_health_log",
  "add_health_log_entry",
  "get_medication_reference",
  "get_condition_reference",
  "search_papers",
  "list_symptom_options",
]);

function question(text: string, conditions: { phrase: string; id: string; label: string }[] = []) {
  const mentions = findMedications(text, NAMES);
  return analyze(text, {
    medications: mentions.map((m) => m.name),
    brands: Object.fromEntries(mentions.filter((m) => m.said !== m.name).map((m) => [m.name, m.said])),
    conditions,
    symptoms: findSymptoms(text),
  });
}

const tools = (text: string, conditions?: { phrase: string; id: string; label: string }[]) =>
  firstCalls(question(text, conditions), ALL_TOOLS).map((call) => call.toolName);

describe("names from the vocabularies", () => {
  test("shipped generic and brand names, a brand looked up by its ingredient, cached names on top", () => {
    expect(findMedications("Can I take Advil with sertraline?", NAMES)).toEqual([
      { said: "advil", name: "ibuprofen" },
      { said: "sertraline", name: "sertraline" },
    ]);
    expect(findMedications("warnings for Humira", NAMES)).toEqual([{ said: "humira", name: "adalimumab" }]);
    expect(medicationOf("Aspirin 81 mg daily", NAMES)).toBe("aspirin");
    expect(medicationOf("Something unlisted 5 mg", NAMES)).toBe("something");
  });

  test("everyday words are not medications", () => {
    expect(findMedications("I feel tired, drink water and coffee, and focus on sleep", NAMES)).toEqual([]);
  });

  test("symptoms by option label and everyday forms, the longest phrase winning", () => {
    const labels = (text: string) => findSymptoms(text).map((s: SymptomMention) => s.label);
    expect(labels("I feel dizzy and nauseous")).toEqual(["Dizziness", "Nausea"]);
    expect(labels("a severe headache and a stiff neck")).toEqual(["Severe headache", "Stiff neck"]);
    expect(findSymptoms("chest pain")[0]?.urgent).toContain("acute");
  });
});

describe("what a message asks", () => {
  test("severity and temperature as written", () => {
    expect(observationOf("record a headache at severity 5")).toEqual({ severity: 5 });
    expect(observationOf("pain 7/10, temperature 38.4")).toEqual({
      severity: 7,
      temperature: 38.4,
      temperatureUnit: "C",
    });
    expect(observationOf("fever of 101.3 f")).toEqual({ temperature: 101.3, temperatureUnit: "F" });
    expect(observationOf("severity 14")).toEqual({});
  });

  test("label topics, my medications, logs and symptom choices", () => {
    expect(question("Is zolpidem safe in pregnancy?").topic).toBe("pregnancy");
    expect(question("What is the usual dose of aspirin?").topic).toBe("dose");
    expect(question("Does ibuprofen interact with my medications?")).toMatchObject({
      topic: "interactions",
      myMedications: true,
    });
    expect(question("Record that I have a headache at severity 5").logs).toBe("record");
    expect(question("What symptoms should I track for the flu?")).toMatchObject({
      symptomOptions: true,
      logs: undefined,
    });
    expect(question("Is my severity getting better?").logs).toBe("progress");
  });
});

describe("planning", () => {
  test("everything a message names, in one step", () => {
    expect(tools("What is ibuprofen and does it interact with my medications?")).toEqual([
      "get_health_profile",
      "get_medication_reference",
    ]);
    const migraine = [{ phrase: "migraine", id: "MONDO:0005277", label: "migraine disorder" }];
    expect(tools("I keep getting migraines, what is known about them?", migraine)).toEqual([
      "get_condition_reference",
      "search_papers",
    ]);
    expect(tools("Summarize my symptoms for my doctor")).toEqual(["list_health_logs"]);
    expect(tools("I have a stiff neck")).toEqual(["list_symptom_options"]);
    expect(tools("Any research on neutrino oscillations?")).toEqual(["search_papers"]);
    expect(firstCalls(question("What is this?"), ALL_TOOLS, true)).toEqual([]);
  });

  test("follow-ups from results: profile labels, the log to summarise or record in, nothing twice", () => {
    const q = question("Which of my medications could cause dizziness?");
    const profile = { consentGiven: true, conditions: [], medications: ["Aspirin 81 mg", "Ambien 10 mg"] };
    const done = [{ toolName: "get_health_profile", input: {}, output: profile, isError: false }];
    const next = followUpCalls(q, done, ALL_TOOLS, NAMES);
    expect(next.map((call) => call.input)).toEqual([{ name: "aspirin" }, { name: "zolpidem" }]);
    const again = followUpCalls(
      q,
      [...done, ...next.map((c) => ({ ...c, output: {}, isError: false }))],
      ALL_TOOLS,
      NAMES,
    );
    expect(again).toEqual([]);

    const logs = (statuses: string[]) => ({
      consentGiven: true,
      trackers: statuses.map((status, i) => ({ id: `log${i}`, title: `Log ${i}`, kind: "acute", status })),
    });
    const record = question("Record that I have a headache at severity 5");
    const listed = (output: unknown) => [{ toolName: "list_health_logs", input: {}, output, isError: false }];
    expect(followUpCalls(record, listed(logs(["resolved", "active"])), ALL_TOOLS, NAMES)).toEqual([
      {
        toolName: "add_health_log_entry",
        input: { trackerId: "log1", entry: { severity: 5, symptoms: ["headache"] } },
      },
    ]);
    expect(followUpCalls(record, listed(logs(["active", "active"])), ALL_TOOLS, NAMES)).toEqual([]);
  });
});

describe("attachments without seeing them", () => {
  test("PNG, JPEG and WebP dimensions from their headers", () => {
    expect(imageSize(makePng(64, 48))).toEqual({ width: 64, height: 48 });
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 3]);
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
    const webp = new Uint8Array(30);
    webp.set(new TextEncoder().encode("RIFF"), 0);
    webp.set(new TextEncoder().encode("WEBPVP8X"), 8);
    webp.set([199, 0, 0, 99, 0, 0], 24);
    expect(imageSize(webp)).toEqual({ width: 200, height: 100 });
    expect(imageSize(new Uint8Array([1, 2, 3]))).toBeUndefined();
  });

  test("attached text keeps its page numbers", () => {
    const file = parseAttachedText(
      'Attached file "labs.pdf" (application/pdf):\n[page 1]\nHbA1c 6.1 %\n\n[page 2]\nLDL 3.1',
    );
    expect(file).toEqual({ filename: "labs.pdf", mediaType: "application/pdf", pages: ["HbA1c 6.1 %", "LDL 3.1"] });
    expect(parseAttachedText("just a message")).toBeUndefined();
  });
});
