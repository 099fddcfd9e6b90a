import { describe, expect, test } from "bun:test";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { findAnalyte } from "../../shared/labs/analytes";
import { imageSize, parseAttachedText } from "../../shared/llm/offline/attachments";
import { analyze, observationOf } from "../../shared/llm/offline/intent";
import { CAN_DO, CANNOT_ANSWER } from "../../shared/llm/offline/limits";
import { createOfflineModel } from "../../shared/llm/offline/model";
import { firstCalls, followUpCalls } from "../../shared/llm/offline/plan";
import {
  findConditions,
  findMedications,
  findSymptoms,
  medicationNames,
  medicationOf,
  type OfflineVocabulary,
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

/**
 * The whole model, as the chat turn drives it: a prompt in, tool calls or an answer out. The
 * conditions are real MONDO terms whose synonyms include everyday words ("can", "all" in the full
 * ontology, as `bun run mondo:load` loads it); the other vocabularies are the shipped ones.
 */
const MONDO: Record<string, { id: string; label: string }> = {
  can: { id: "MONDO:0012833", label: "Crouzon syndrome-acanthosis nigricans syndrome" },
  all: { id: "MONDO:0004967", label: "acute lymphoblastic leukemia" },
  get: { id: "MONDO:0008708", label: "generalized essential telangiectasia" },
  face: { id: "MONDO:0013248", label: "Fanconi anemia complementation group E" },
  gout: { id: "MONDO:0005393", label: "gout" },
  asthma: { id: "MONDO:0004979", label: "asthma" },
  migraine: { id: "MONDO:0005277", label: "migraine disorder" },
};
const VOCABULARY: OfflineVocabulary = {
  conditions: async (phrases) => phrases.flatMap((phrase) => (MONDO[phrase] ? [{ phrase, ...MONDO[phrase] }] : [])),
  cachedMedications: async () => [],
  analytes: (phrases) =>
    phrases.flatMap((phrase) => {
      const analyte = findAnalyte(phrase);
      return analyte ? [{ phrase, name: analyte.name, code: analyte.code }] : [];
    }),
};
const LAB_TOOLS = ["get_lab_history", "list_lab_panels"];

interface Step {
  toolName: string;
  input: Record<string, unknown>;
  /** The error text the tool loop passes on, or else the tool's output. */
  error?: string;
  output?: unknown;
}

/** One model step: the tools it calls, or its answer. `triage` is the level the instructions state. */
async function step(text: string, options: { triage?: string; done?: Step[] } = {}) {
  const system = options.triage
    ? `You are a careful health information assistant.\nThe service's safety check rated this message ${options.triage}; the person has been shown: "…" Do not contradict it.`
    : "You are a careful health information assistant.";
  const prompt: LanguageModelV4Prompt = [
    { role: "system", content: system },
    { role: "user", content: [{ type: "text", text }] },
  ];
  for (const [i, done] of (options.done ?? []).entries()) {
    const toolCallId = `call_${i}`;
    prompt.push(
      { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: done.toolName, input: done.input }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: done.toolName,
            output:
              done.error === undefined
                ? { type: "json", value: done.output as never }
                : { type: "error-text", value: done.error },
          },
        ],
      },
    );
  }
  const tools = [...ALL_TOOLS, ...LAB_TOOLS].map((name) => ({
    type: "function" as const,
    name,
    inputSchema: { type: "object" as const },
  }));
  const result = await createOfflineModel(VOCABULARY).doGenerate({ prompt, tools });
  const calls = result.content.flatMap((part) =>
    part.type === "tool-call" ? [{ toolName: part.toolName, input: JSON.parse(part.input) }] : [],
  );
  const answer = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  return { calls, tools: calls.map((call) => call.toolName), answer };
}

describe("what it cannot answer", () => {
  test("a general health question: no tool, a plain sentence saying so, and what it can do", async () => {
    for (const text of [
      "how much sleep do adults need?",
      "how can I lose weight?",
      "is the prognosis good after knee surgery?",
    ]) {
      const { tools, answer } = await step(text);
      expect({ text, tools }).toEqual({ text, tools: [] });
      expect(answer).toContain(CANNOT_ANSWER);
      expect(answer).toContain(CAN_DO);
      expect(answer).not.toContain("Papers in our index");
    }
  });

  test("after the safety check's advice it points to that advice and does not contradict it", async () => {
    const emergency = await step("I feel like ending it all tonight", { triage: "emergency" });
    expect(emergency.tools).toEqual([]);
    expect(emergency.answer).toContain("Please follow the safety check's advice above now");
    expect(emergency.answer).not.toContain("general reference information");
    const selfCare = await step("how do I get rid of a cold quickly?", { triage: "self_care" });
    expect(selfCare.tools).toEqual([]);
    expect(selfCare.answer).toContain("The safety check's advice above is the service's answer");
    const symptoms = await step("I have a fever and a stiff neck, what should I do?", { triage: "emergency" });
    expect(symptoms.tools).toEqual(["list_symptom_options"]);
  });
});

describe("literature searches only on request", () => {
  const query = async (text: string) => (await step(text)).calls.find((c) => c.toolName === "search_papers")?.input;

  test("a request for papers, studies or research, or to search, searches the topic named", async () => {
    expect(await query("Any research on neutrino oscillations?")).toEqual({ query: "neutrino oscillations" });
    expect(await query("Latest papers on black holes")).toEqual({ query: "black holes" });
    expect(await query("find papers about how much sleep adults need")).toEqual({ query: "sleep adults" });
    expect(await query("search for the effects of caffeine on sleep")).toEqual({ query: "effects caffeine sleep" });
    expect(await query("Is there any evidence that vitamin D prevents colds?")).toEqual({
      query: "vitamin prevents colds",
    });
    expect(await query("asthma research?")).toEqual({ query: "asthma" });
    // "them" is the condition the message names.
    expect(await query("I keep getting migraines, what is known about them?")).toEqual({ query: "migraine" });
  });

  test("a question that merely contains a word is not a request, and a request without a topic asks for one", async () => {
    for (const text of [
      "how much sleep do adults need?",
      "I'm taking part in a study, is it safe to drink coffee?",
      "I study nursing, what is a normal heart rate?",
      "Does the evidence of blood in my stool mean something serious?",
      "I feel like ending it all tonight",
    ]) {
      expect({ text, search: await query(text) }).toEqual({ text, search: undefined });
    }
    const widened = await step("find papers about how much sleep adults need", {
      done: [
        {
          toolName: "search_papers",
          input: { query: "sleep adults" },
          output: { query: { text: "sleep", widened: true }, data: [{ id: "0704.0001", title: "Sleep in birds" }] },
        },
      ],
    });
    expect(widened.answer).toContain('No paper in our index matches all of "sleep adults"; these match "sleep":');
    const noTopic = await step("show me the latest research");
    expect(noTopic.tools).toEqual([]);
    expect(noTopic.answer).toContain("Tell me the topic to search the papers for");
  });
});

describe("conditions only as the person names them", () => {
  test("a short MONDO synonym that is an everyday word is not a condition; in capitals or as the name it is", async () => {
    const labels = async (text: string) => (await findConditions(text, VOCABULARY)).map((c) => c.label);
    expect(await labels("can you explain what my HbA1c of 7.2 means?")).toEqual([]);
    expect(await labels("why do I get a rash on my face after all that?")).toEqual([]);
    expect(await labels("What is ALL?")).toEqual(["acute lymphoblastic leukemia"]);
    expect(await labels("what is gout")).toEqual(["gout"]);
    expect(await labels("WHAT CAN I DO")).toEqual([]);
  });

  test("a question about the person's own lab value reads their results, and no condition or paper", async () => {
    const first = await step("can you explain what my HbA1c of 7.2 means?");
    expect(first.calls).toEqual([{ toolName: "get_lab_history", input: { name: "HbA1c" } }]);
    const crisis = await step("I feel like ending it all tonight");
    expect(crisis.tools).toEqual([]);
  });
});

describe("a tool that failed", () => {
  const failed = (toolName: string, input: Record<string, unknown>, error: string) => ({ toolName, input, error });

  test("is one plain sentence, never the error's text", async () => {
    const cases: [Step, string][] = [
      [
        failed(
          "get_medication_reference",
          { name: "metformin" },
          "Error: RxNav (RxNorm) did not answer and nothing is cached for this query; retry later.",
        ),
        "I could not reach the medication reference (RxNorm) just now; try again in a minute.",
      ],
      [
        failed("get_medication_reference", { name: "metformin" }, "openFDA did not answer and nothing is cached"),
        "I could not reach the FDA label reference (openFDA) just now; try again in a minute.",
      ],
      [
        failed("search_papers", { query: "black holes" }, "Error: The search_papers tool failed; try again later."),
        "I could not reach the paper index just now; try again in a minute.",
      ],
      [
        failed("get_condition_reference", { q: "asthma" }, 'Error: No condition matches "asthma" closely enough.'),
        'I found nothing for "asthma" in the condition reference (MONDO).',
      ],
      [
        failed(
          "get_lab_history",
          { name: "HbA1c" },
          "TypeError: Cannot read properties of undefined (reading 'x')\n    at run (labs.ts:12:3)",
        ),
        'I could not use your lab results for "HbA1c" this time.',
      ],
    ];
    for (const [done, sentence] of cases) {
      const { answer } = await step("is it safe to drink alcohol with metformin?", { done: [done] });
      expect(answer).toContain(sentence);
      expect(answer).not.toMatch(/Error|did not answer|retry later|closely enough|properties|labs\.ts/);
    }
  });
});
