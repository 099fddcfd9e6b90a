import { createHash, randomBytes } from "node:crypto";
import type { Ctx, SystemCtx } from "../context/ctx";
import { publicUrl } from "../core/env";
import { AppError, invalidRequest } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db, unavailable } from "../core/unavailable";
import {
  deleteChat,
  findChatById,
  findChatByIdUnscoped,
  findSharedChatId,
  insertShare,
  listChatsByAccount,
  listMessages,
  revokeShares,
  type Surface,
  updateChat,
} from "./repository";
import type { ChatPatch, ChatSummary, Conversation, StoredUIMessage } from "./schemas";

export async function getConversation(ctx: Ctx, chatId: string): Promise<Conversation> {
  const chat = await ownedChat(ctx, chatId);
  return { ...chat, messages: await db(listMessages(ctx.sql, chat.id)) };
}

export async function listChats(
  ctx: Ctx,
  page: { surface: Surface; limit?: number; cursor?: string },
): Promise<{ chats: ChatSummary[]; next_cursor: string | null }> {
  const before = page.cursor ? Buffer.from(page.cursor, "base64url").toString() : null;
  if (before !== null && !isUuid(before)) {
    throw invalidRequest([{ in: "query", path: "/cursor", message: "Not a cursor this API returned" }]);
  }
  const limit = page.limit ?? 20;
  const rows = await db(
    listChatsByAccount(ctx.sql, ctx.accountId, { surface: page.surface, before, limit: limit + 1 }),
  );
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { chats: shown, next_cursor: rows.length > limit && last ? Buffer.from(last.id).toString("base64url") : null };
}

export async function patchChat(ctx: Ctx, input: { chatId: string; patch: ChatPatch }): Promise<ChatSummary> {
  const { chatId, patch } = input;
  await ownedChat(ctx, chatId);
  await db(
    updateChat(ctx.sql, ctx.accountId, chatId, { ...patch, ...(patch.title ? { title: patch.title.trim() } : {}) }),
  );
  return ownedChat(ctx, chatId);
}

export async function removeChat(ctx: Ctx, chatId: string): Promise<{ deleted: true }> {
  await ownedChat(ctx, chatId);
  await db(deleteChat(ctx.sql, ctx.accountId, chatId));
  return { deleted: true };
}

const hashToken = (token: string) => createHash("sha256").update(token).digest();

/** A read-only link; the token is shown once and stored hashed. */
export async function shareChat(ctx: Ctx, chatId: string): Promise<{ token: string; url: string }> {
  const chat = await ownedChat(ctx, chatId);
  const token = `shr_${randomBytes(24).toString("base64url")}`;
  await db(insertShare(ctx.sql, { id: Bun.randomUUIDv7(), chatId: chat.id, tokenHash: hashToken(token) }));
  return { token, url: `${publicUrl(ctx.env)}/api/v1/shared/${token}` };
}

export async function revokeChatShares(ctx: Ctx, chatId: string): Promise<{ revoked: number }> {
  await ownedChat(ctx, chatId);
  return { revoked: await db(revokeShares(ctx.sql, ctx.accountId, chatId)) };
}

/** Tools whose outputs hold the person's own health data: a shared copy withholds them. */
const PERSONAL_TOOLS = new Set([
  "get_health_profile",
  "list_health_logs",
  "summarize_health_log",
  "add_health_log_entry",
  "list_lab_panels",
  "get_lab_history",
]);

/**
 * A reply that read the person's profile, logs or lab results may quote them anywhere in its text (and in the
 * inputs of other tools it called), so such a reply is withheld whole in a shared copy: one that
 * called a personal tool, and one written with the profile in the model's instructions (every reply
 * of an account with consent; see healthInstructions). Other replies keep their parts. Metadata is
 * dropped.
 */
function withoutPersonalData(message: StoredUIMessage): StoredUIMessage {
  const profileInPrompt = message.metadata?.profileInPrompt === true;
  const personal = profileInPrompt || message.parts.some((part) => PERSONAL_TOOLS.has(part.type.replace(/^tool-/, "")));
  const parts = personal
    ? [{ type: "text", text: "[Withheld: this reply used the person's health profile, logs or lab results.]" }]
    : message.parts;
  return { id: message.id, role: message.role, parts };
}

/** The conversation behind a share token (no key needed), without personal profile and log data. */
export async function readSharedChat(ctx: SystemCtx, token: string): Promise<Conversation> {
  const chatId = /^shr_[A-Za-z0-9_-]{32}$/.test(token)
    ? await db(findSharedChatId(ctx.sql, hashToken(token)))
    : undefined;
  const chat = chatId ? await db(findChatByIdUnscoped(ctx.sql, chatId)) : undefined;
  if (!chat) throw new AppError("NOT_FOUND", "No shared chat with this link (it may have been revoked).");
  const messages = await db(listMessages(ctx.sql, chat.id));
  return { ...chat, messages: messages.map(withoutPersonalData) };
}

/**
 * The caller's health chat as a share link shows it: replies that used the profile, logs or lab
 * results withheld. For readers that may see the chats but not the health data behind them (an MCP
 * token with the `chat` scope). A research chat is not found, as on the health chat routes.
 */
export async function readChatTranscript(ctx: Ctx, chatId: string): Promise<Conversation> {
  const chat = await ownedChat(ctx, chatId);
  if (chat.surface !== "health") throw new AppError("NOT_FOUND", `No chat with id ${chatId}.`);
  const messages = await db(listMessages(ctx.sql, chat.id));
  return { ...chat, messages: messages.map(withoutPersonalData) };
}

/** The caller's chat with this id; another account's chat is 404, like a missing one. */
export async function ownedChat(ctx: Ctx, chatId: string): Promise<ChatSummary> {
  const chat = isUuid(chatId)
    ? await findChatById(ctx.sql, ctx.accountId, chatId).catch(unavailable("PostgreSQL"))
    : undefined;
  if (!chat) throw new AppError("NOT_FOUND", `No chat with id ${chatId}.`);
  return chat;
}
