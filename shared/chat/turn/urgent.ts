import type { UIMessageChunk } from "ai";
import type { Ctx } from "../../context/ctx";
import type { StoredUIMessage } from "../../conversations/schemas";
import { getLog } from "../../health/logs";
import { triageEntry, triageText, type UrgentNotice, urgentNotice } from "../../safety/triage";

/**
 * The urgent notice of a chat turn (docs/safety.md): the service's own red-flag check on the
 * person's message, before any model runs, and on an entry the chat records. The notice travels as
 * a `data-urgent` part followed by its advice as text: a message's ahead of the model's answer, so no
 * model's text can precede it; an entry's right after the tool result that stored the entry.
 */
const URGENT_PART = "data-urgent";
const ADVICE_TEXT_ID = "urgent-advice";
const ENTRY_TOOL = "add_health_log_entry";

/** The notice for the turn's own user message, or null. */
export function messageNotice(history: StoredUIMessage[], turnId: string): UrgentNotice | null {
  const message = history.find((candidate) => candidate.id === turnId);
  const text = (message?.parts ?? []).flatMap((part) =>
    part.type === "text" && typeof part.text === "string" ? [part.text] : [],
  );
  return urgentNotice(triageText(text.join("\n")), "message");
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
  return urgentNotice(triageEntry({ symptoms, note }, log.kind), "entry");
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

/** The first notice among a stored message's parts (the JSON reply and the MCP result carry it). */
export function noticeOf(message: StoredUIMessage | undefined): UrgentNotice | null {
  const part = message?.parts.find((candidate) => candidate.type === URGENT_PART);
  return (part?.data as UrgentNotice | undefined) ?? null;
}

/**
 * A turn's notices as its answer streams: the message's at the start, and the first recorded
 * entry's (when the message had none) right after that tool's result. `stored` puts them in the
 * stored parts at the same places.
 */
export function noticeTracker(ctx: Pick<Ctx, "sql" | "accountId">, notice: UrgentNotice | null) {
  const entryInputs = new Map<string, unknown>();
  let entry: { afterToolCallId: string; notice: UrgentNotice } | undefined;
  return {
    opening: (): UIMessageChunk[] => (notice ? noticeChunks(notice) : []),
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
    stored(parts: StoredUIMessage["parts"]): StoredUIMessage["parts"] {
      if (notice) return [...noticeParts(notice), ...parts];
      if (!entry) return parts;
      const { afterToolCallId, notice: found } = entry;
      const at = parts.findIndex((part) => part.toolCallId === afterToolCallId) + 1;
      return at === 0
        ? [...noticeParts(found), ...parts]
        : [...parts.slice(0, at), ...noticeParts(found), ...parts.slice(at)];
    },
  };
}
