import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { composeAnswer } from "./compose";
import { analyze, type Question } from "./intent";
import { findAnalytes } from "./labs";
import { firstCalls, followUpCalls, type ToolCall } from "./plan";
import { readTurn } from "./prompt";
import { findConditions, findMedications, findSymptoms, medicationNames, type OfflineVocabulary } from "./vocabulary";

/**
 * The built-in model used when no LLM provider is configured. It is not a language model and says
 * so: it reads the last user message, finds what it names in the service's vocabularies, plans the
 * tools the question needs (several per step, and follow-ups once results are in), lets the real
 * tool loop run them, then streams one answer quoting the results with their sources and a safety
 * note. It implements the AI SDK's LanguageModelV4 interface, so the chat pipeline, tool loop and
 * stream protocol are exactly those a real provider goes through.
 */
export const OFFLINE_MODEL_ID = "offline-reference";

/** Tool steps before it answers with what it has (the turn allows six steps in all). */
const MAX_TOOL_STEPS = 3;

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** Estimated tokens: about four characters each (reported as usage; the model has no tokenizer). */
const tokens = (text: string) => Math.ceil(text.length / 4);

/** One empty list, so the merged names of "none cached" are built once (medicationNames memoizes by list). */
const NO_NAMES: { name: string; generic: string | null }[] = [];

type Found = Pick<Question, "medications" | "brands" | "conditions" | "symptoms" | "analytes">;

/** Names in the message and its attached text. A vocabulary that cannot be read counts as empty. */
async function findNames(message: string, attached: string, vocabulary?: OfflineVocabulary) {
  const all = `${message}\n${attached}`;
  const cached = medicationNames((await vocabulary?.cachedMedications().catch(() => NO_NAMES)) ?? NO_NAMES);
  const conditions = vocabulary ? await findConditions(all, vocabulary).catch(() => []) : [];
  const mentions = findMedications(all, cached);
  const found: Found = {
    medications: mentions.map((m) => m.name),
    brands: Object.fromEntries(mentions.filter((m) => m.said !== m.name).map((m) => [m.name, m.said])),
    conditions,
    symptoms: findSymptoms(message),
    // Lab names in an attached report are read from its results table, not as a question.
    analytes: vocabulary ? findAnalytes(message, vocabulary) : [],
  };
  return { found, cached };
}

function usageOf(options: LanguageModelV4CallOptions, output: number) {
  const input = tokens(JSON.stringify(options.prompt));
  return {
    inputTokens: { ...ZERO_USAGE.inputTokens, total: input, noCache: input },
    outputTokens: { ...ZERO_USAGE.outputTokens, total: output, text: output },
  };
}

function toolCallParts(calls: ToolCall[], options: LanguageModelV4CallOptions): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [];
  let size = 0;
  for (const call of calls) {
    const id = `call_${crypto.randomUUID()}`;
    const input = JSON.stringify(call.input);
    size += input.length;
    parts.push(
      { type: "tool-input-start", id, toolName: call.toolName },
      { type: "tool-input-delta", id, delta: input },
      { type: "tool-input-end", id },
      { type: "tool-call", toolCallId: id, toolName: call.toolName, input },
    );
  }
  const finishReason = { unified: "tool-calls", raw: "tool-calls" } as const;
  return [...parts, { type: "finish", usage: usageOf(options, Math.ceil(size / 4)), finishReason }];
}

function textParts(answer: ReturnType<typeof composeAnswer>, options: LanguageModelV4CallOptions) {
  const parts: LanguageModelV4StreamPart[] = answer.sources.map((source) => ({
    type: "source",
    sourceType: "url",
    id: source.url,
    url: source.url,
    title: source.title,
  }));
  parts.push({ type: "text-start", id: "text-0" });
  // Sentence-sized deltas, as a streaming provider sends them.
  for (const piece of answer.text.match(/[^\n.!?]*[\n.!?]*\s*/g) ?? []) {
    if (piece) parts.push({ type: "text-delta", id: "text-0", delta: piece });
  }
  const finishReason = { unified: "stop", raw: "stop" } as const;
  parts.push(
    { type: "text-end", id: "text-0" },
    { type: "finish", usage: usageOf(options, tokens(answer.text)), finishReason },
  );
  return parts;
}

type NameLookup = (message: string, attached: string) => ReturnType<typeof findNames>;

async function respond(options: LanguageModelV4CallOptions, lookup: NameLookup) {
  const turn = readTurn(options.prompt);
  const attached = turn.attachments.files.map((file) => file.pages.join("\n")).join("\n");
  const { found, cached } = await lookup(turn.text, attached);
  const q = analyze(turn.text, found);
  const available = new Set((options.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool.name] : [])));
  const calls =
    turn.done.length === 0
      ? firstCalls(
          q,
          available,
          turn.attachments.images.length + turn.attachments.files.length > 0,
          turn.allergiesOnFile,
        )
      : turn.toolSteps < MAX_TOOL_STEPS
        ? followUpCalls(q, turn.done, available, cached)
        : [];
  const start: LanguageModelV4StreamPart = { type: "stream-start", warnings: [] };
  if (calls.length > 0) return [start, ...toolCallParts(calls, options)];
  return [start, ...textParts(composeAnswer(q, turn, cached), options)];
}

export function createOfflineModel(vocabulary?: OfflineVocabulary): LanguageModelV4 {
  // A model serves one turn, whose steps read the same message: its names are looked up once.
  const looked = new Map<string, ReturnType<typeof findNames>>();
  const lookup: NameLookup = (message, attached) => {
    const key = `${message}\u0000${attached}`;
    let names = looked.get(key);
    if (!names) {
      names = findNames(message, attached, vocabulary);
      looked.set(key, names);
    }
    return names;
  };
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    async doStream(options) {
      const parts = await respond(options, lookup);
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
    async doGenerate(options) {
      const parts = await respond(options, lookup);
      const finish = parts.find((p) => p.type === "finish");
      const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
      const content = [
        ...parts.flatMap((p) => (p.type === "tool-call" || p.type === "source" ? [p] : [])),
        ...(text ? [{ type: "text" as const, text }] : []),
      ];
      return {
        content,
        finishReason: finish?.type === "finish" ? finish.finishReason : { unified: "stop", raw: "stop" },
        usage: finish?.type === "finish" ? finish.usage : ZERO_USAGE,
        warnings: [],
      };
    },
  };
}
