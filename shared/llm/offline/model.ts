import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { composeAnswer } from "./answers";
import { chooseTool } from "./intent";

/**
 * The built-in model used when no LLM provider is configured. It is not a language model and says
 * so: it reads the last user message, picks one tool by simple rules (offlineIntent.ts), lets the
 * real tool loop run it, then streams a short answer quoting the tool's result with its sources
 * and a safety note (offlineAnswers.ts). It implements the AI SDK's LanguageModelV4 interface, so
 * the chat pipeline, tool loop and stream protocol are exactly those a real provider goes through.
 */
export const OFFLINE_MODEL_ID = "offline-reference";

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role === "user") {
      return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    }
  }
  return "";
}

/** Tool results of the latest step (the messages after the last user message). */
function latestToolResults(prompt: LanguageModelV4Prompt): { toolName: string; output: unknown; isError: boolean }[] {
  const results: { toolName: string; output: unknown; isError: boolean }[] = [];
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (!message || message.role === "user") break;
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const isError = output.type === "error-text" || output.type === "error-json";
      results.push({ toolName: part.toolName, output: "value" in output ? output.value : undefined, isError });
    }
  }
  return results;
}

/** Estimated tokens: about four characters each (reported as usage; the model has no tokenizer). */
const tokens = (text: string) => Math.ceil(text.length / 4);

function plan(options: LanguageModelV4CallOptions): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  const promptChars = JSON.stringify(options.prompt).length;
  const usage = (output: number) => ({
    inputTokens: { ...ZERO_USAGE.inputTokens, total: Math.ceil(promptChars / 4), noCache: Math.ceil(promptChars / 4) },
    outputTokens: { ...ZERO_USAGE.outputTokens, total: output, text: output },
  });
  const results = latestToolResults(options.prompt);
  const available = new Set((options.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool.name] : [])));
  const choice = results.length === 0 ? chooseTool(lastUserText(options.prompt), available) : undefined;
  if (choice) {
    const id = `call_${crypto.randomUUID()}`;
    const input = JSON.stringify(choice.input);
    parts.push(
      { type: "tool-input-start", id, toolName: choice.toolName },
      { type: "tool-input-delta", id, delta: input },
      { type: "tool-input-end", id },
      { type: "tool-call", toolCallId: id, toolName: choice.toolName, input },
      { type: "finish", usage: usage(tokens(input)), finishReason: { unified: "tool-calls", raw: "tool-calls" } },
    );
    return parts;
  }
  const answer = composeAnswer(lastUserText(options.prompt), results);
  for (const source of answer.sources) {
    parts.push({ type: "source", sourceType: "url", id: source.url, url: source.url, title: source.title });
  }
  parts.push({ type: "text-start", id: "text-0" });
  // Sentence-sized deltas, as a streaming provider sends them.
  for (const piece of answer.text.match(/[^\n.!?]*[\n.!?]*\s*/g) ?? []) {
    if (piece) parts.push({ type: "text-delta", id: "text-0", delta: piece });
  }
  parts.push(
    { type: "text-end", id: "text-0" },
    { type: "finish", usage: usage(tokens(answer.text)), finishReason: { unified: "stop", raw: "stop" } },
  );
  return parts;
}

export function createOfflineModel(): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    async doStream(options) {
      const parts = plan(options);
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
      const parts = plan(options);
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
