import type { Principal } from "../../auth/apiKeys";
import type { Deps } from "../../context/deps";
import {
  deleteChat,
  deleteMessage,
  findReplyToTurn,
  insertChatWithMessage,
  insertUserMessage,
  listMessages,
} from "../../conversations/repository";
import type { ChatReply, ChatRequest, StoredUIMessage } from "../../conversations/schemas";
import { ownedChat } from "../../conversations/verbs";
import { AppError } from "../../core/errors";
import { isUuid } from "../../core/formats";
import { redisKeys } from "../../core/redis";
import { fromPostgres, unavailable } from "../../core/unavailable";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { enqueue } from "../../jobs/queue";
import { estimateTokens, type ModelEntry, routeModel } from "../../llm/models";
import { findUploadsByIds } from "../../uploads/repository";
import { turnStartSlot } from "./pacing";

export type ChatCtx = Pick<Deps, "sql" | "redis" | "queues" | "env" | "models">;
type Caller = Pick<Principal, "accountId" | "plan">;

/**
 * Attachments must be the caller's own ready `health` uploads: unknown or another account's → 404,
 * not ready yet or failed → 409 (the spec's "attachment conflict"). PDFs and text files reach the
 * model as their extracted text (any model reads that); images need a model that reads images.
 */
export async function checkAttachments(
  ctx: ChatCtx,
  caller: Caller,
  ids: readonly string[],
): Promise<{ modalities: "image"[]; textCharacters: number }> {
  if (ids.length === 0) return { modalities: [], textCharacters: 0 };
  const valid = ids.filter(isUuid);
  const rows = valid.length
    ? await findUploadsByIds(ctx.sql, caller.accountId, valid).catch(unavailable("PostgreSQL"))
    : [];
  const byId = new Map(rows.map((row) => [row.fileId, row]));
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) throw new AppError("NOT_FOUND", `No uploaded file with id ${id}.`);
    if (row.status !== "ready") {
      const why =
        row.status === "failed" ? `failed processing: ${row.failureReason}` : `is ${row.status}, not ready yet`;
      throw new AppError("CONFLICT", `Attachment ${id} ${why}.`);
    }
  }
  // An image costs about width × height / 750 tokens (the size models bill for; the model copy when there is one).
  const imageTokens = rows.reduce((sum, row) => {
    const size = row.details.modelCopy ?? row.details;
    return sum + (size.width && size.height ? Math.ceil((size.width * size.height) / 750) : 0);
  }, 0);
  return {
    modalities: rows.some((row) => row.contentType.startsWith("image/")) ? ["image"] : [],
    textCharacters: rows.reduce((sum, row) => sum + (row.details.textCharacters ?? 0), 0) + imageTokens * 4,
  };
}

/** A title from the first message: its first line, at most 80 characters. */
export function titleFrom(message: string): string {
  const line = message.trim().split("\n")[0]?.trim() ?? "";
  return line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line || "Health chat";
}

export interface PreparedTurn {
  turn: ChatTurn;
  model: ModelEntry;
  created: boolean;
  /** The user message to store, and the chat to create with it when `created`. */
  message: StoredUIMessage;
  chat: { id: string; accountId: string; surface: "health"; title: string };
}

/**
 * Everything the API checks before a turn is queued, with no write: ownership and surface of the
 * chat, model entitlement and routing, the context-size check (413 before any model is called).
 * `submitTurn` then stores the message and queues the turn.
 */
export async function prepareTurn(ctx: ChatCtx, caller: Caller, body: ChatRequest): Promise<PreparedTurn> {
  // A burst of new turns starts a few per event-loop turn, on every surface (REST, website, MCP).
  const slot = turnStartSlot();
  if (slot) await slot;
  const existing = body.chat_id ? await ownedChat(ctx, caller, body.chat_id) : undefined;
  if (existing && existing.surface !== "health") {
    throw new AppError(
      "WRONG_CHAT_SURFACE",
      `Chat ${existing.id} is a ${existing.surface} chat; health chat takes health chats only.`,
    );
  }
  const attachments = await checkAttachments(ctx, caller, body.attachment_ids ?? []);
  const history = existing ? await listMessages(ctx.sql, existing.id).catch(unavailable("PostgreSQL")) : [];
  const replyText = (body.reply_contexts ?? []).map((quote) => quote.text).join("\n");
  // Attached text counts in full: it goes to the model with every later turn of the chat too.
  const contextTokens =
    estimateTokens(JSON.stringify(history.map((m) => m.parts)) + body.message + replyText) +
    Math.ceil(attachments.textCharacters / 4);
  const model = routeModel(ctx.models, caller.plan, body.model ?? "auto", {
    contextTokens,
    modalities: attachments.modalities,
  });
  const chatId = existing?.id ?? Bun.randomUUIDv7();
  const message: StoredUIMessage = {
    id: `msg_${Bun.randomUUIDv7()}`,
    role: "user",
    parts: [{ type: "text", text: body.message }],
    metadata: {
      ...(body.reply_contexts?.length ? { replyContexts: body.reply_contexts } : {}),
      ...(body.attachment_ids?.length ? { attachmentIds: body.attachment_ids } : {}),
      createdAt: new Date().toISOString(),
    },
  };
  const chat = { id: chatId, accountId: caller.accountId, surface: "health" as const, title: titleFrom(body.message) };
  const turn: ChatTurn = {
    chatId,
    accountId: caller.accountId,
    plan: caller.plan,
    turnId: message.id,
    modelId: model.id,
  };
  return { turn, model, created: !existing, message, chat };
}

/**
 * Stores the user message and queues its turn at the same time, so the turn's first chunk does not
 * wait for the message's commit (an fsync, 0.5–1.5 ms here). Both or neither: a stored message whose
 * turn could not be queued is deleted again (503), and a queued turn whose message was not stored
 * (503) ends on the worker with an error and stores nothing. The worker reads the conversation once
 * the message is there: it is, in all but a race, when the worker gets to its reads; else it waits
 * for the word this verb leaves in Redis (`turnStored`) and reads again.
 */
export async function submitTurn(ctx: ChatCtx, prepared: PreparedTurn): Promise<void> {
  const { turn, message, chat } = prepared;
  // The job first: the worker's pick-up is the longer path.
  const queued = enqueueTurn(ctx, turn);
  const stored = fromPostgres(
    prepared.created ? insertChatWithMessage(ctx.sql, chat, message) : insertUserMessage(ctx.sql, chat.id, message),
  );
  const [store, queue] = await Promise.allSettled([stored, queued]);
  const both = store.status === "fulfilled" && queue.status === "fulfilled";
  const key = redisKeys(ctx.env.REDIS_PREFIX).turnStored(turn.turnId);
  // If this word is lost, the waiting worker decides by reading PostgreSQL once more.
  const word = ctx.redis.set(key, both ? "stored" : "failed", "EX", 60).catch(() => {});
  if (store.status === "rejected") throw store.reason;
  if (queue.status === "rejected") {
    await word;
    await (prepared.created ? deleteChat(ctx.sql, chat.accountId, chat.id) : deleteMessage(ctx.sql, message.id)).catch(
      () => {},
    );
    throw queue.reason;
  }
}

/** Queues the turn (the job id is the turn's, so it runs once) and marks it in progress. */
async function enqueueTurn(ctx: ChatCtx, turn: ChatTurn): Promise<void> {
  const keys = redisKeys(ctx.env.REDIS_PREFIX);
  // Both go out on the request connection back to back: one round trip, in this order.
  await Promise.all([
    ctx.redis.set(keys.chatActiveTurn(turn.chatId), turn.turnId, "EX", 3600),
    enqueue(ctx.queues, "chat.turn", turn, { jobId: `turn-${turn.turnId}` }),
  ]).catch(unavailable("Redis"));
}

/** The JSON reply of a finished turn (spec 2.6); a failed turn is 502. */
export async function replyOf(ctx: Pick<ChatCtx, "sql">, turn: ChatTurn): Promise<ChatReply> {
  const message = await findReplyToTurn(ctx.sql, turn.turnId).catch(unavailable("PostgreSQL"));
  const metadata = (message?.metadata ?? {}) as { model?: string; usage?: ChatReply["usage"]; finishReason?: string };
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
    message,
  };
}
