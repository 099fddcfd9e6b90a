import type { ChatReply, MessageMetadata, StoredUIMessage } from "../../conversations/schemas";
import { replyToTurn } from "../../conversations/turns";
import { AppError } from "../../core/errors";
import { unavailable } from "../../core/unavailable";
import type { Sql } from "../../db/sql";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { noticeOf, triageOf } from "./urgent";

/** A turn's reply has an id derived from the turn's, so every attempt and every reader agree on it. */
export function replyIdFor(turnId: string): string {
  return `${turnId}-reply`;
}

/** The assistant message a turn stores, once, whether it answered or failed. */
export function replyMessage(
  turnId: string,
  parts: StoredUIMessage["parts"],
  metadata: Omit<MessageMetadata, "createdAt">,
): StoredUIMessage {
  return {
    id: replyIdFor(turnId),
    role: "assistant",
    parts,
    metadata: { ...metadata, createdAt: new Date().toISOString() },
  };
}

/** The JSON reply of a finished turn (spec 2.6); a failed turn is 502. */
export async function replyOf(ctx: { sql: Sql }, turn: ChatTurn): Promise<ChatReply> {
  const message = await replyToTurn(ctx, turn.turnId).catch(unavailable("PostgreSQL"));
  const metadata = message?.metadata ?? {};
  if (!message || metadata.finishReason === "error") {
    throw new AppError("ASSISTANT_FAILED", "The assistant failed to answer; the message is saved, retry.");
  }
  const text = message.parts
    .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("\n\n");
  return {
    chat_id: turn.chatId,
    text,
    model: metadata.model ?? turn.modelId,
    usage: metadata.usage ?? { inputTokens: null, outputTokens: null, totalTokens: null },
    finish_reason: (metadata.finishReason ?? "other") as ChatReply["finish_reason"],
    // A reply stored before turns were triaged has no level: it was not a report the check rated.
    triage: triageOf(message) ?? { level: "none", presentations: [], reason: "Not triaged." },
    urgent: noticeOf(message),
    message,
  };
}
