import type { UIMessageChunk } from "ai";
import type { Ctx } from "../../context/ctx";
import type { StoredUIMessage } from "../../conversations/schemas";
import type { Env } from "../../core/env";
import type { Logger } from "../../core/log";
import { getLog } from "../../health/logs";
import type { ModelEntry } from "../../llm/models";
import { assessMessage, type Triage, triageAdvice } from "../../safety/assess";
import { atLeast } from "../../safety/levels";
import { entryNotice as noticeForEntry, triageEntry, type UrgentNotice } from "../../safety/triage";
import { askModelTriage, withModelTriage } from "./modelTriage";

/**
 * The safety of a chat turn (docs/safety.md): the service's own triage of the person's message,
 * before any model runs, and the red-flag check of an entry the chat records. Every turn opens with
 * a `data-triage` part (its level), then, from `urgent` up, a `data-urgent` part (the compatible
 * notice), then the level's advice as text: ahead of the model's answer, so no model's text can
 * precede it. An entry's notice comes right after the tool result that stored the entry.
 */
const TRIAGE_PART = "data-triage";
const URGENT_PART = "data-urgent";
const ADVICE_TEXT_ID = "urgent-advice";
const ENTRY_TOOL = "add_health_log_entry";

/** A turn's triage, the notice derived from it (from `urgent` up) and the reply's opening advice. */
export interface TurnSafety {
  triage: Triage;
  notice: UrgentNotice | null;
  advice: string | null;
}

/** The text the person wrote in the turn's own message. */
function messageText(history: StoredUIMessage[], turnId: string): string {
  const message = history.find((candidate) => candidate.id === turnId);
  return (message?.parts ?? [])
    .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("\n");
}

/**
 * The triage of the turn's own user message, with its notice and advice: the rules', raised by the
 * model's own triage when a language model answers the turn (modelTriage.ts).
 */
export async function messageSafety(
  ctx: { env: Env; log: Logger },
  model: ModelEntry,
  history: StoredUIMessage[],
  turnId: string,
): Promise<TurnSafety> {
  const text = messageText(history, turnId);
  const rules = assessMessage(text);
  return safetyOf(withModelTriage(rules, await askModelTriage(ctx, model, text)));
}

/** The notice and advice a triage calls for; the notice (the `urgent` field) only from `urgent` up. */
export function safetyOf(triage: Triage): TurnSafety {
  const advice = triageAdvice(triage);
  if (!advice || !atLeast(triage.level, "urgent")) return { triage, notice: null, advice };
  const urgentOnes = triage.presentations.filter((presentation) => atLeast(presentation.level, "urgent"));
  const signs = urgentOnes.length
    ? urgentOnes.map(({ id, label }) => ({ id, label, category: id }))
    : [{ id: "same_day_symptoms", label: "Symptoms that need care today", category: "general" }];
  return { triage, notice: { signs, advice, source: "message" }, advice };
}

/** The notice for an entry the chat just stored, judged by its log's kind; null when none, or unreadable. */
async function entryNotice(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: unknown,
  output: unknown,
): Promise<UrgentNotice | null> {
  const logId = (input as { trackerId?: unknown } | undefined)?.trackerId;
  const entry = output as { symptoms?: unknown; note?: unknown } | undefined;
  if (typeof logId !== "string" || !Array.isArray(entry?.symptoms)) return null;
  const log = await getLog(ctx, { id: logId }).catch(() => undefined);
  if (!log) return null;
  const symptoms = entry.symptoms.filter((symptom): symptom is string => typeof symptom === "string");
  const note = typeof entry.note === "string" ? entry.note : null;
  return noticeForEntry(triageEntry({ symptoms, note }, log.kind), log.kind);
}

/** The chunks that put a notice in the stream: the data part, then its advice as a text part. */
function noticeChunks(notice: UrgentNotice): UIMessageChunk[] {
  const id = `${ADVICE_TEXT_ID}-${notice.source}`;
  return [
    { type: URGENT_PART, id: `urgent-${notice.source}`, data: notice },
    { type: "text-start", id },
    { type: "text-delta", id, delta: notice.advice },
    { type: "text-end", id },
  ];
}

/** The same as stored message parts. */
function noticeParts(notice: UrgentNotice): StoredUIMessage["parts"] {
  return [
    { type: URGENT_PART, id: `urgent-${notice.source}`, data: notice },
    { type: "text", text: notice.advice, state: "done" },
  ];
}

/** A turn's opening chunks: its triage, then the notice with its advice, or the advice alone. */
function openingChunks(safety: TurnSafety): UIMessageChunk[] {
  const triage: UIMessageChunk = { type: TRIAGE_PART, id: "triage", data: safety.triage };
  if (safety.notice) return [triage, ...noticeChunks(safety.notice)];
  if (!safety.advice) return [triage];
  const id = `${ADVICE_TEXT_ID}-message`;
  return [
    triage,
    { type: "text-start", id },
    { type: "text-delta", id, delta: safety.advice },
    { type: "text-end", id },
  ];
}

function openingParts(safety: TurnSafety): StoredUIMessage["parts"] {
  const triage = { type: TRIAGE_PART, id: "triage", data: safety.triage };
  if (safety.notice) return [triage, ...noticeParts(safety.notice)];
  if (!safety.advice) return [triage];
  return [triage, { type: "text", text: safety.advice, state: "done" }];
}

/** The triage a stored reply carries (null for a reply stored before turns were triaged). */
export function triageOf(message: StoredUIMessage | undefined): Triage | null {
  return dataPart<Triage>(message, TRIAGE_PART);
}

/** The first notice among a stored message's parts (the JSON reply and the MCP result carry it). */
export function noticeOf(message: StoredUIMessage | undefined): UrgentNotice | null {
  return dataPart<UrgentNotice>(message, URGENT_PART);
}

/** The data of a stored message's first part of this type. */
function dataPart<T>(message: StoredUIMessage | undefined, type: string): T | null {
  return (message?.parts.find((part) => part.type === type)?.data as T | undefined) ?? null;
}

/**
 * A turn's notices as its answer streams: the message's at the start, and the first recorded
 * entry's (when the message had none) right after that tool's result. `stored` puts them in the
 * stored parts at the same places.
 */
export function noticeRecorder(ctx: Pick<Ctx, "sql" | "accountId">, safety: TurnSafety) {
  const { notice } = safety;
  const entryInputs = new Map<string, unknown>();
  let entry: { afterToolCallId: string; notice: UrgentNotice } | undefined;
  return {
    opening: (): UIMessageChunk[] => openingChunks(safety),
    /** Chunks to send after this one: a promise only for an entry tool's result (the stream's hot path stays synchronous). */
    after(chunk: UIMessageChunk): Promise<UIMessageChunk[]> | undefined {
      if (chunk.type === "tool-input-available" && chunk.toolName === ENTRY_TOOL)
        entryInputs.set(chunk.toolCallId, chunk.input);
      if (notice || entry || chunk.type !== "tool-output-available" || !entryInputs.has(chunk.toolCallId))
        return undefined;
      const { toolCallId } = chunk;
      return entryNotice(ctx, entryInputs.get(toolCallId), chunk.output).then((found) => {
        if (!found) return [];
        entry = { afterToolCallId: toolCallId, notice: found };
        return noticeChunks(found);
      });
    },
    stored(answer: StoredUIMessage["parts"]): StoredUIMessage["parts"] {
      const parts = [...openingParts(safety), ...answer];
      if (notice || !entry) return parts;
      const { afterToolCallId, notice: found } = entry;
      const at = parts.findIndex((part) => part.toolCallId === afterToolCallId) + 1;
      return at === 0
        ? [...noticeParts(found), ...parts]
        : [...parts.slice(0, at), ...noticeParts(found), ...parts.slice(at)];
    },
  };
}
