import type { Ctx } from "../../context/ctx";
import { ownedChat } from "../../conversations/chats";
import type { ChatRequest, StoredUIMessage } from "../../conversations/schemas";
import { chatMessages, type UserTurn } from "../../conversations/turns";
import { AppError } from "../../core/errors";
import { unavailable } from "../../core/unavailable";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { estimateTokens, type ModelEntry, routeModel } from "../../llm/models";
import { checkAttachments } from "./attachments";

/** The user message to store, and the chat to create with it when `created`; the job and its model. */
export interface PreparedTurn extends UserTurn {
  turn: ChatTurn;
  model: ModelEntry;
}

/**
 * Everything the API checks before a turn is queued, with no write: ownership and surface of the
 * chat, attachments, model entitlement and routing, the context-size check (413 before any model
 * is called).
 */
export async function prepareTurn(ctx: Ctx, input: ChatRequest): Promise<PreparedTurn> {
  const existing = input.chat_id ? await healthChat(ctx, input.chat_id) : undefined;
  const attachments = await checkAttachments(ctx, input.attachment_ids ?? []);
  const history = existing ? await chatMessages(ctx, existing.id).catch(unavailable("PostgreSQL")) : [];
  const replyText = (input.reply_contexts ?? []).map((quote) => quote.text).join("\n");
  // Attached text counts in full: it goes to the model with every later turn of the chat too.
  const contextTokens =
    estimateTokens(JSON.stringify(history.map((m) => m.parts)) + input.message + replyText) +
    Math.ceil(attachments.textCharacters / 4);
  const model = routeModel(ctx.models, ctx.plan, input.model ?? "auto", {
    contextTokens,
    modalities: attachments.modalities,
  });
  const chatId = existing?.id ?? Bun.randomUUIDv7();
  const message = userMessage(input);
  const chat = { id: chatId, accountId: ctx.accountId, surface: "health" as const, title: titleFrom(input.message) };
  const turn: ChatTurn = {
    chatId,
    accountId: ctx.accountId,
    plan: ctx.plan,
    turnId: message.id,
    modelId: model.id,
    ...(ctx.scopes ? { scopes: [...ctx.scopes] } : {}),
  };
  return { turn, model, created: !existing, message, chat };
}

async function healthChat(ctx: Ctx, chatId: string) {
  const chat = await ownedChat(ctx, chatId);
  if (chat.surface !== "health") {
    throw new AppError(
      "WRONG_CHAT_SURFACE",
      `Chat ${chat.id} is a ${chat.surface} chat; health chat takes health chats only.`,
    );
  }
  return chat;
}

/** The user message as stored: its id is also the turn's. */
function userMessage(input: ChatRequest): StoredUIMessage {
  return {
    id: `msg_${Bun.randomUUIDv7()}`,
    role: "user",
    parts: [{ type: "text", text: input.message }],
    metadata: {
      ...(input.reply_contexts?.length ? { replyContexts: input.reply_contexts } : {}),
      ...(input.attachment_ids?.length ? { attachmentIds: input.attachment_ids } : {}),
      createdAt: new Date().toISOString(),
    },
  };
}

/** A title from the first message: its first line, at most 80 characters. */
function titleFrom(message: string): string {
  const line = message.trim().split("\n")[0]?.trim() ?? "";
  // Cut by code points, so an emoji is never split into a broken character.
  const characters = [...line];
  return characters.length > 80 ? `${characters.slice(0, 79).join("").trimEnd()}…` : line || "Health chat";
}
