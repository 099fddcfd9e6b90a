import { Type as T } from "@sinclair/typebox";
import { ChatRequestSchema, FinishReasonSchema, UsageSchema } from "../conversations/schemas";
import { Text } from "../core/text";
import { TriageSchema } from "../safety/assess";
import { UrgentNoticeSchema } from "../safety/triage";
import { defineTool } from "../tools/types";
import { startTurn } from "./turn/start";

const ChatId = Text({
  minLength: 1,
  maxLength: 64,
  description: "A chat id (health_chat's chat_id or list_chats).",
});
const request = ChatRequestSchema.properties;

/**
 * `health_chat` runs a turn exactly like POST /api/v1/health/chat (queued, run by a worker with the
 * same prompt, profile and tools) and returns the completed answer. It sits above the tools the
 * turn itself may call, so it lives with the turn.
 */
export const healthChatTool = defineTool({
  name: "health_chat",
  title: "Ask the health assistant",
  description:
    "Sends a message to the service's health assistant (the website's health chat: same prompt, the caller's stored profile, medication, condition and literature tools) and returns its completed answer. Pass chat_id to continue a conversation. Not a diagnosis.",
  input: T.Object(
    {
      message: request.message,
      chat_id: T.Optional(ChatId),
      model: request.model,
      attachment_ids: request.attachment_ids,
    },
    { additionalProperties: false },
  ),
  output: T.Object({
    chat_id: T.String(),
    text: T.String(),
    model: T.String(),
    usage: UsageSchema,
    finish_reason: FinishReasonSchema,
    message_id: T.String({ description: "The stored assistant message." }),
    triage: TriageSchema,
    urgent: T.Union([UrgentNoticeSchema, T.Null()], {
      description:
        "Derived from `triage` from `urgent` up (or a recorded entry's red-flag sign), with the advice the text begins with.",
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  scope: "chat",
  feature: "health",
  run: async (ctx, input) => {
    const turn = await startTurn(ctx, input);
    const { message, ...reply } = await turn.reply();
    return { ...reply, message_id: message.id };
  },
  // The advice leads the text already; the level and signs are named once more so no client drops them.
  render: (r) =>
    `${r.urgent ? `URGENT: ${r.urgent.signs.map((sign) => sign.label).join("; ")}.\n` : ""}Triage: ${r.triage.level}.\n\n${r.text}\n\n(chat_id ${r.chat_id}, model ${r.model})`,
});
