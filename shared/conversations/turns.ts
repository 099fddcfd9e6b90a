import type { Db } from "../db/sql";
import {
  deleteChat,
  deleteMessage,
  findReplyToTurn,
  insertAssistantMessage,
  insertChatWithMessage,
  insertUserMessage,
  listMessages,
  touchChat,
} from "./repository";
import type { StoredUIMessage } from "./schemas";

/**
 * The conversation's side of a chat turn (shared/chat/turn/): what a turn stores and reads. The
 * chat's own rules live here, not in the turn: a new chat is created with its first message, a
 * reply is stored once, and an answered chat moves up the list. Errors are the database's; the
 * caller decides what an outage means on its path (503 on the API, a failed job on a worker).
 */
type Store = { sql: Db };

/** A turn's user message, and the chat it starts when `created`. */
export interface UserTurn {
  created: boolean;
  message: StoredUIMessage;
  chat: { id: string; accountId: string; surface: "health"; title: string };
}

/** The chat's messages, oldest first. */
export function chatMessages(store: Store, chatId: string): Promise<StoredUIMessage[]> {
  return listMessages(store.sql, chatId);
}

/** Stores the user message; a new chat is created with it in one statement (one commit). */
export function appendUserMessage(store: Store, turn: UserTurn): Promise<void> {
  return turn.created
    ? insertChatWithMessage(store.sql, turn.chat, turn.message)
    : insertUserMessage(store.sql, turn.chat.id, turn.message);
}

/** Takes back a user message whose turn could not be queued: the chat it created, or the message. */
export async function withdrawUserMessage(store: Store, turn: UserTurn): Promise<void> {
  if (turn.created) await deleteChat(store.sql, turn.chat.accountId, turn.chat.id);
  else await deleteMessage(store.sql, turn.message.id);
}

/** The reply stored for a turn, if any attempt stored one. */
export function replyToTurn(store: Store, turnId: string): Promise<StoredUIMessage | undefined> {
  return findReplyToTurn(store.sql, turnId);
}

/** Stores a turn's answer (once: a second reply to the turn is ignored) and moves the chat up the list. */
export async function appendReply(
  store: Store,
  input: { chatId: string; turnId: string; reply: StoredUIMessage },
): Promise<void> {
  await insertAssistantMessage(store.sql, input.chatId, input.turnId, input.reply);
  await touchChat(store.sql, input.chatId);
}

/**
 * Stores the error reply of a turn that failed outside the model (a crash, a stalled worker), once;
 * the chat keeps its place. True when this call stored it (no attempt had answered).
 */
export function appendErrorReply(
  store: Store,
  input: { chatId: string; turnId: string; reply: StoredUIMessage },
): Promise<boolean> {
  return insertAssistantMessage(store.sql, input.chatId, input.turnId, input.reply);
}
