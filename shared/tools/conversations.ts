import { Type as T } from "@sinclair/typebox";
import { getConversation, listChats, patchChat, removeChat, shareChat } from "../conversations/chats";
import { ChatListSchema, ChatSummarySchema, ConversationSchema } from "../conversations/schemas";
import { AppError } from "../core/errors";
import { Text } from "../core/text";
import { ModelInfoSchema, modelsForPlan } from "../llm/models";
import { DELETE, READ_ONLY, WRITE, WRITE_IDEMPOTENT } from "./annotations";
import { defineTool } from "./types";

/** The verbs of /api/v1/chats and /api/v1/models, as tools. */
const ChatId = Text({
  minLength: 1,
  maxLength: 64,
  description: "A chat id (health_chat's chat_id or list_chats).",
});
export const listChatsTool = defineTool({
  name: "list_chats",
  title: "List conversations",
  description:
    "The caller's conversations of a surface (health by default), newest first; page with cursor = next_cursor.",
  input: T.Object(
    {
      surface: T.Optional(T.Union([T.Literal("health"), T.Literal("research")], { default: "health" })),
      limit: T.Optional(T.Integer({ minimum: 1, maximum: 100, default: 20 })),
      cursor: T.Optional(Text({ minLength: 1, maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  output: ChatListSchema,
  annotations: READ_ONLY,
  scope: "chat",
  run: (ctx, input) => listChats(ctx, { ...input, surface: input.surface ?? "health" }),
  render: (l) => l.chats.map((c) => `${c.title} (id ${c.id}, ${c.updatedAt})`).join("\n") || "No chats.",
});

export const getChatTool = defineTool({
  name: "get_chat",
  title: "Read a health conversation",
  description: "One of the caller's health conversations with all its messages, oldest first.",
  input: T.Object({ chat_id: ChatId }, { additionalProperties: false }),
  output: ConversationSchema,
  annotations: READ_ONLY,
  scope: "chat",
  feature: "health",
  run: async (ctx, input) => {
    const conversation = await getConversation(ctx, input.chat_id);
    // As on GET /api/v1/health/chat/{id}: a research chat is not a health conversation.
    if (conversation.surface !== "health") throw new AppError("NOT_FOUND", `No health chat with id ${input.chat_id}.`);
    return conversation;
  },
  render: (c) => `${c.title}: ${c.messages.length} messages.`,
});

export const updateChatTool = defineTool({
  name: "update_chat",
  title: "Rename, pin or archive a chat",
  description: "Changes a conversation's title, pinned or archived flag; give at least one of them.",
  input: T.Object(
    {
      chat_id: ChatId,
      title: T.Optional(Text({ minLength: 1, maxLength: 120, pattern: "\\S" })),
      pinned: T.Optional(T.Boolean()),
      archived: T.Optional(T.Boolean()),
    },
    { additionalProperties: false },
  ),
  output: ChatSummarySchema,
  annotations: WRITE_IDEMPOTENT,
  scope: "chat",
  run: (ctx, { chat_id, ...patch }) => {
    if (Object.keys(patch).length === 0) {
      throw new AppError("VALIDATION_FAILED", "Give at least one of title, pinned, archived.");
    }
    return patchChat(ctx, { chatId: chat_id, patch });
  },
  render: (c) => `${c.title} (pinned ${c.pinned}, archived ${c.archived}).`,
});

export const deleteChatTool = defineTool({
  name: "delete_chat",
  title: "Delete a chat",
  description: "Permanently deletes one of the caller's conversations and its messages.",
  input: T.Object({ chat_id: ChatId }, { additionalProperties: false }),
  output: T.Object({ deleted: T.Literal(true) }),
  annotations: DELETE,
  scope: "chat",
  run: (ctx, input) => removeChat(ctx, input.chat_id),
  render: () => "Deleted.",
});

export const shareChatTool = defineTool({
  name: "share_chat",
  title: "Create a share link for a chat",
  description:
    "A read-only public link to a conversation; replies that used the health profile, logs or lab results are left out of the shared view.",
  input: T.Object({ chat_id: ChatId }, { additionalProperties: false }),
  output: T.Object({ token: T.String(), url: T.String() }),
  annotations: WRITE,
  scope: "chat",
  run: (ctx, input) => shareChat(ctx, input.chat_id),
  render: (s) => s.url,
});

export const listModelsTool = defineTool({
  name: "list_models",
  title: "Models the plan can run",
  description:
    "The health assistant's models available to the caller's plan, with context windows and the default; pass an id as health_chat's model.",
  input: T.Object({}, { additionalProperties: false }),
  output: T.Object({ surface: T.Literal("health"), models: T.Array(ModelInfoSchema) }),
  annotations: READ_ONLY,
  scope: "chat",
  run: (ctx) => ({ surface: "health" as const, models: modelsForPlan(ctx.models, ctx.plan) }),
  render: (r) => r.models.map((m) => `${m.id}${m.default ? " (default)" : ""}: ${m.label}`).join("\n"),
});
