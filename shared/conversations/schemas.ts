import { type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { TriageSchema } from "../safety/assess";
import { UrgentNoticeSchema } from "../safety/triage";

/** Shapes of the health chat: the request (spec 4.2), the JSON reply (2.6), stored conversations. */

export const CHAT_LIMITS = { message: 64_000, attachments: 5, replyContexts: 10, replyContextText: 4_000 } as const;

export const ChatRequestSchema = T.Object(
  {
    message: Text({ minLength: 1, maxLength: CHAT_LIMITS.message, pattern: "\\S", description: "Nonblank." }),
    chat_id: T.Optional(Text({ minLength: 1, maxLength: 64, description: "Omit to start a conversation." })),
    stream: T.Optional(T.Boolean({ default: false })),
    model: T.Optional(Text({ minLength: 1, maxLength: 100, description: "A model id from /api/v1/models, or auto." })),
    attachment_ids: T.Optional(
      T.Array(Text({ minLength: 1, maxLength: 64 }), { maxItems: CHAT_LIMITS.attachments, uniqueItems: true }),
    ),
    reply_contexts: T.Optional(
      T.Array(
        T.Object(
          {
            text: Text({ minLength: 1, maxLength: CHAT_LIMITS.replyContextText }),
            source_message_id: T.Optional(Text({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: CHAT_LIMITS.replyContexts },
      ),
    ),
  },
  { additionalProperties: false, description: "No transcript, system prompt or user id: the server holds those." },
);
export type ChatRequest = Static<typeof ChatRequestSchema>;

export const UsageSchema = T.Object({
  inputTokens: T.Union([T.Integer(), T.Null()]),
  outputTokens: T.Union([T.Integer(), T.Null()]),
  totalTokens: T.Union([T.Integer(), T.Null()]),
});
export type Usage = Static<typeof UsageSchema>;

/**
 * What a stored message records beside its parts: a user message its quotes and attachments, an
 * assistant message how it was answered. Every field is optional and others are allowed, so rows
 * written by earlier versions still read.
 */
export const MessageMetadataSchema = T.Object(
  {
    createdAt: T.Optional(T.String({ format: "date-time" })),
    replyContexts: T.Optional(
      T.Array(
        T.Object({ text: T.String(), source_message_id: T.Optional(T.String()) }, { additionalProperties: true }),
      ),
    ),
    attachmentIds: T.Optional(T.Array(T.String())),
    model: T.Optional(T.String({ description: "The model that answered." })),
    usage: T.Optional(UsageSchema),
    finishReason: T.Optional(T.String()),
    promptVersion: T.Optional(T.String()),
    profileInPrompt: T.Optional(
      T.Boolean({ description: "The instructions carried the profile: a shared copy withholds this reply." }),
    ),
    error: T.Optional(T.String({ description: "Why a turn failed outside the model." })),
  },
  { additionalProperties: true },
);
export type MessageMetadata = Static<typeof MessageMetadataSchema>;

/** An AI SDK UI message: `parts` are text, tool-<name>, source-url, step-start, … parts. */
export const UIMessageSchema = T.Object({
  id: T.String(),
  role: T.Union([T.Literal("user"), T.Literal("assistant"), T.Literal("system")]),
  parts: T.Array(
    T.Unsafe<{ type: string; [field: string]: unknown }>(
      T.Object({ type: T.String() }, { additionalProperties: true }),
    ),
  ),
  metadata: T.Optional(MessageMetadataSchema),
});
export type StoredUIMessage = Static<typeof UIMessageSchema>;

export const FinishReasonSchema = T.Union([
  T.Literal("stop"),
  T.Literal("length"),
  T.Literal("content-filter"),
  T.Literal("tool-calls"),
  T.Literal("error"),
  T.Literal("other"),
]);

export const ChatReplySchema = T.Object({
  chat_id: T.String(),
  text: T.String({ description: "The assistant's text parts joined." }),
  model: T.String({ description: "The model that answered (after routing)." }),
  usage: UsageSchema,
  finish_reason: FinishReasonSchema,
  triage: TriageSchema,
  urgent: T.Union([UrgentNoticeSchema, T.Null()], {
    description:
      "Kept for compatibility, derived from `triage`: when its level is `urgent` or `emergency` (or an entry the chat recorded has a red-flag sign), the presentations found with the advice; `text` begins with that advice. Null otherwise.",
  }),
  message: UIMessageSchema,
});
export type ChatReply = Static<typeof ChatReplySchema>;

export const ChatSummarySchema = T.Object({
  id: T.String(),
  surface: T.Union([T.Literal("health"), T.Literal("research")]),
  title: T.String(),
  pinned: T.Boolean(),
  archived: T.Boolean(),
  createdAt: T.String({ format: "date-time" }),
  updatedAt: T.String({ format: "date-time" }),
});
export type ChatSummary = Static<typeof ChatSummarySchema>;

export const ConversationSchema = T.Composite([
  ChatSummarySchema,
  T.Object({ messages: T.Array(UIMessageSchema, { description: "Oldest first." }) }),
]);
export type Conversation = Static<typeof ConversationSchema>;

export const ChatListSchema = T.Object({
  chats: T.Array(ChatSummarySchema, { description: "Newest first." }),
  next_cursor: T.Union([T.String(), T.Null()]),
});

export const ChatPatchSchema = T.Object(
  {
    title: T.Optional(Text({ minLength: 1, maxLength: 120, pattern: "\\S" })),
    pinned: T.Optional(T.Boolean()),
    archived: T.Optional(T.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ChatPatch = Static<typeof ChatPatchSchema>;
