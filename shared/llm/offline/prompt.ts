import type { LanguageModelV4FilePart, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { ALLERGIES_ON_FILE } from "../../core/promptMarkers";
import { ratedLevelIn } from "../../core/triageLevels";
import { type Attachments, imageSize, parseAttachedText } from "./attachments";
import { obj } from "./json";
import { parseLabTable } from "./labTable";
import type { Level } from "./limits";
import type { Done } from "./plan";

/**
 * What the offline model reads from the prompt: the last user message (its text, and its
 * attachments), the tool calls of this turn with their results, and the safety check's level that
 * its instructions state. Earlier turns are not read.
 */
export interface Turn {
  text: string;
  attachments: Attachments;
  done: Done[];
  /** Model steps that called tools since the user's message. */
  toolSteps: number;
  /** The level the service's triage gave the message, whose advice the reply already opens with. */
  triage?: Level;
  /** The day the instructions say it is (YYYY-MM-DD), for "how long ago". */
  today?: string;
  /** The instructions' profile lists allergies from imported records: a medication question checks them. */
  allergiesOnFile: boolean;
}

/** The level the instructions state (any model reads it there; shared/safety/levels.ts writes and reads it). */
function triageOf(prompt: LanguageModelV4Prompt): Level | undefined {
  for (const message of prompt) {
    const level = message.role === "system" ? ratedLevelIn(message.content) : undefined;
    if (level) return level;
  }
  return undefined;
}

const systemText = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((message) => (message.role === "system" ? [message.content] : [])).join("\n");

/**
 * What the instructions say that any model reads there (shared/chat/turn/prompt.ts writes them):
 * "Today is 2026-03-14." and the profile's "allergies and intolerances (from imported records): …"
 * (shared/healthRecords/profileText.ts). The allergies themselves are read from the profile tool.
 */
function instructed(prompt: LanguageModelV4Prompt): Pick<Turn, "today" | "allergiesOnFile"> {
  const system = systemText(prompt);
  return {
    today: /\bToday is (\d{4}-\d{2}-\d{2})\b/.exec(system)?.[1],
    allergiesOnFile: system.includes(ALLERGIES_ON_FILE),
  };
}

function fileBytes(part: LanguageModelV4FilePart): Uint8Array | undefined {
  const data = part.data;
  if (data.type === "data") {
    return typeof data.data === "string" ? new Uint8Array(Buffer.from(data.data, "base64")) : data.data;
  }
  if (data.type === "url" && data.url.protocol === "data:") {
    const comma = data.url.href.indexOf(",");
    return new Uint8Array(Buffer.from(decodeURIComponent(data.url.href.slice(comma + 1)), "base64"));
  }
  return undefined;
}

function readUser(content: LanguageModelV4Prompt[number]["content"]): Pick<Turn, "text" | "attachments"> {
  const texts: string[] = [];
  const attachments: Attachments = { images: [], files: [], labTables: [] };
  for (const part of Array.isArray(content) ? content : []) {
    if (part.type === "text") {
      const table = parseLabTable(part.text);
      const file = table ? undefined : parseAttachedText(part.text);
      if (table) attachments.labTables.push(table);
      else if (file) attachments.files.push(file);
      else texts.push(part.text);
    }
    if (part.type === "file" && part.mediaType.startsWith("image")) {
      const bytes = fileBytes(part);
      const size = bytes ? imageSize(bytes) : undefined;
      attachments.images.push({
        filename: part.filename,
        mediaType: part.mediaType,
        bytes: bytes?.length ?? 0,
        ...size,
      });
    }
  }
  return { text: texts.join("\n"), attachments };
}

export function readTurn(prompt: LanguageModelV4Prompt): Turn {
  const lastUser = prompt.findLastIndex((message) => message.role === "user");
  const user = lastUser >= 0 ? readUser((prompt[lastUser] as LanguageModelV4Prompt[number]).content) : undefined;
  const calls = new Map<string, Done>();
  let toolSteps = 0;
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role === "assistant") {
      const parts = message.content.filter((part) => part.type === "tool-call");
      if (parts.length) toolSteps++;
      for (const part of parts) {
        calls.set(part.toolCallId, {
          toolName: part.toolName,
          input: obj(part.input),
          output: undefined,
          isError: false,
        });
      }
    }
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const call = calls.get(part.toolCallId) ?? {
        toolName: part.toolName,
        input: {},
        output: undefined,
        isError: false,
      };
      call.isError = output.type === "error-text" || output.type === "error-json";
      call.output = "value" in output ? output.value : undefined;
      calls.set(part.toolCallId, call);
    }
  }
  return {
    text: user?.text ?? "",
    attachments: user?.attachments ?? { images: [], files: [], labTables: [] },
    done: [...calls.values()],
    toolSteps,
    triage: triageOf(prompt),
    ...instructed(prompt),
  };
}
