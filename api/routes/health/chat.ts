import { Elysia, t } from "elysia";
import { activeTurn } from "../../../shared/chat/turn/active";
import { startTurn } from "../../../shared/chat/turn/start";
import type { Deps } from "../../../shared/context/deps";
import { getConversation } from "../../../shared/conversations/chats";
import { ChatReplySchema, ChatRequestSchema, ConversationSchema } from "../../../shared/conversations/schemas";
import { AppError } from "../../../shared/core/errors";
import { failures } from "../../openapi/declare";
import { NO_CONTENT, response, STREAM_HEADERS, UI_MESSAGE_STREAM } from "../../openapi/media";
import { ctxOf } from "../../requestState";
import { turnResponse } from "../../sse/turnStream";
import { type Mount, V1 } from "../mount";

const ChatParams = t.Object({ chatid: t.String() });

/** The health chat: a turn is queued and run by a worker; this relays it (SSE) or waits for it (JSON). */
export function chatRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/chat${mount.suffix}` })
    .post(
      `${mount.base}/health/chat`,
      async ({ request, body }) => {
        const turn = await startTurn(ctxOf(deps, request), body);
        // A Response passes through untouched; the schema below documents the JSON reply.
        return body.stream ? (turnResponse(deps, turn) as never) : turn.reply();
      },
      {
        body: ChatRequestSchema,
        response: { 200: ChatReplySchema },
        detail: failures(
          {
            tags: mount.tags("Health chat"),
            summary: "Send a message to the health assistant",
            description:
              "stream: false → the JSON reply. stream: true → an SSE stream of AI SDK UI message chunks (`data: {json}` … `data: [DONE]`, header x-vercel-ai-ui-message-stream: v1); X-Chat-Id comes with the headers. Tools run on the server. If the message cannot be stored or the turn queued, the answer is 503 (before any stream) and nothing is kept.",
            responses: {
              200: response(
                "`stream: false`: the JSON reply. `stream: true`: the turn as an event stream.",
                UI_MESSAGE_STREAM,
                STREAM_HEADERS,
              ),
            },
          },
          "NOT_FOUND",
          "CONSENT_REQUIRED",
          "MODEL_NOT_AVAILABLE",
          "WRONG_CHAT_SURFACE",
          "CONFLICT",
          "CONTEXT_TOO_LARGE",
          "ASSISTANT_FAILED",
          "UPSTREAM_FAILED",
        ),
      },
    )
    .get(
      `${mount.base}/health/chat/:chatid`,
      async ({ request, params }) => {
        const conversation = await getConversation(ctxOf(deps, request), params.chatid);
        // A research chat is not a health conversation: on this path it does not exist.
        if (conversation.surface !== "health")
          throw new AppError("NOT_FOUND", `No health chat with id ${params.chatid}.`);
        return conversation;
      },
      {
        params: ChatParams,
        response: ConversationSchema,
        detail: failures({ tags: mount.tags("Health chat"), summary: "A stored health conversation" }, "NOT_FOUND"),
      },
    )
    .get(
      `${mount.base}/health/chat/:chatid/stream`,
      async ({ request, params, query, set }) => {
        const afterSeq = Number(request.headers.get("last-event-id") ?? query.after ?? 0) || 0;
        const turn = await activeTurn(ctxOf(deps, request), { chatId: params.chatid, afterSeq });
        if (!turn) {
          set.status = 204;
          return null;
        }
        return turnResponse(deps, turn);
      },
      {
        params: ChatParams,
        query: t.Object({ after: t.Optional(t.Integer({ minimum: 0, description: "Same as Last-Event-ID." })) }),
        detail: failures(
          {
            tags: mount.tags("Health chat"),
            summary: "Re-attach to the turn in progress",
            description:
              "Replays chunks after Last-Event-ID (or `after`), then continues live. 204 when no turn is in progress.",
            parameters: [
              {
                name: "Last-Event-ID",
                in: "header",
                required: false,
                description: "The `id` of the last event received; wins over `after`.",
                schema: { type: "string" },
              },
            ],
            responses: { 200: response("The turn's events.", UI_MESSAGE_STREAM, STREAM_HEADERS), 204: NO_CONTENT },
          },
          "NOT_FOUND",
        ),
      },
    );
}
