import { type Db, isoTimestamp } from "../db/sql";
import type { ChatPatch, ChatSummary, StoredUIMessage } from "./schemas";

export type Surface = "health" | "research";

const iso = isoTimestamp;

const CHAT_COLUMNS = (sql: Db) => sql`
  c.id, c.surface, c.title, c.pinned, c.archived, ${iso(sql, "c.created_at")} as "createdAt",
  ${iso(sql, "c.updated_at")} as "updatedAt"`;

/** The account's chat with this id, of any surface; another account's chat is not found. */
export async function findChatById(sql: Db, accountId: string, id: string): Promise<ChatSummary | undefined> {
  const [row] = await sql<ChatSummary[]>`
    select ${CHAT_COLUMNS(sql)} from chats c where c.id = ${id} and c.account_id = ${accountId}`;
  return row;
}

export async function listChatsByAccount(
  sql: Db,
  accountId: string,
  page: { surface: Surface; before: string | null; limit: number },
): Promise<ChatSummary[]> {
  return sql<ChatSummary[]>`
    select ${CHAT_COLUMNS(sql)} from chats c
    where c.account_id = ${accountId} and c.surface = ${page.surface}
      ${page.before ? sql`and c.id < ${page.before}` : sql``}
    order by c.id desc limit ${page.limit}`;
}

export async function updateChat(sql: Db, accountId: string, id: string, patch: ChatPatch): Promise<boolean> {
  const result = await sql`
    update chats set title = coalesce(${patch.title ?? null}, title), pinned = coalesce(${patch.pinned ?? null}, pinned),
      archived = coalesce(${patch.archived ?? null}, archived), updated_at = now()
    where id = ${id} and account_id = ${accountId}`;
  return result.count === 1;
}

export async function touchChat(sql: Db, id: string): Promise<void> {
  await sql`update chats set updated_at = now() where id = ${id}`;
}

export async function deleteChat(sql: Db, accountId: string, id: string): Promise<boolean> {
  const result = await sql`delete from chats where id = ${id} and account_id = ${accountId}`;
  return result.count === 1;
}

/** Creates a chat with its first message in one statement (one round trip, one commit). */
export async function insertChatWithMessage(
  sql: Db,
  chat: { id: string; accountId: string; surface: Surface; title: string },
  message: StoredUIMessage,
): Promise<void> {
  await sql`
    with chat as (
      insert into chats (id, account_id, surface, title)
      values (${chat.id}, ${chat.accountId}, ${chat.surface}, ${chat.title}) returning id
    )
    insert into chat_messages (id, chat_id, role, parts, metadata)
    select ${message.id}, chat.id, 'user', ${sql.json(message.parts as never)}, ${sql.json((message.metadata ?? {}) as never)}
    from chat`;
}

export async function insertUserMessage(sql: Db, chatId: string, message: StoredUIMessage): Promise<void> {
  await sql`insert into chat_messages (id, chat_id, role, parts, metadata)
    values (${message.id}, ${chatId}, 'user', ${sql.json(message.parts as never)}, ${sql.json((message.metadata ?? {}) as never)})`;
}

export async function deleteMessage(sql: Db, id: string): Promise<void> {
  await sql`delete from chat_messages where id = ${id}`;
}

/** Stores the reply to a turn once: a second reply to the same user message is ignored. */
export async function insertAssistantMessage(
  sql: Db,
  chatId: string,
  turnId: string,
  message: StoredUIMessage,
): Promise<boolean> {
  const result = await sql`
    insert into chat_messages (id, chat_id, role, parts, metadata, turn_id)
    values (${message.id}, ${chatId}, 'assistant', ${sql.json(message.parts as never)},
      ${sql.json((message.metadata ?? {}) as never)}, ${turnId})
    on conflict do nothing`;
  return result.count === 1;
}

export async function findReplyToTurn(sql: Db, turnId: string): Promise<StoredUIMessage | undefined> {
  const [row] = await sql<StoredUIMessage[]>`
    select id, role, parts, metadata from chat_messages where turn_id = ${turnId}`;
  return row;
}

/** The conversation's messages, oldest first. */
export async function listMessages(sql: Db, chatId: string): Promise<StoredUIMessage[]> {
  return sql<StoredUIMessage[]>`
    select id, role, parts, metadata from chat_messages where chat_id = ${chatId} order by created_at, id`;
}

export async function insertShare(sql: Db, share: { id: string; chatId: string; tokenHash: Buffer }): Promise<void> {
  await sql`insert into chat_shares (id, chat_id, token_hash) values (${share.id}, ${share.chatId}, ${share.tokenHash})`;
}

export async function findSharedChatId(sql: Db, tokenHash: Buffer): Promise<string | undefined> {
  const [row] = await sql<{ chatId: string }[]>`
    select chat_id as "chatId" from chat_shares where token_hash = ${tokenHash} and revoked_at is null`;
  return row?.chatId;
}

export async function findChatByIdUnscoped(sql: Db, id: string): Promise<ChatSummary | undefined> {
  const [row] = await sql<ChatSummary[]>`select ${CHAT_COLUMNS(sql)} from chats c where c.id = ${id}`;
  return row;
}

export async function revokeShares(sql: Db, accountId: string, chatId: string): Promise<number> {
  const result = await sql`
    update chat_shares s set revoked_at = now() from chats c
    where s.chat_id = c.id and c.id = ${chatId} and c.account_id = ${accountId} and s.revoked_at is null`;
  return result.count;
}
