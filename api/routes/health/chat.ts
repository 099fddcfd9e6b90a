import { Elysia, t } from "elysia";
import { prepareTurn, submitTurn } from "../../../shared/chat/turn/prepare";
import { runTurnToEnd } from "../../../shared/chat/turn/runToEnd";
import type { Deps } from "../../../shared/context/deps";
import { ChatReplySchema, ChatRequestSchema, ConversationSchema } from "../../../shared/conversations/schemas";
import { getConversation, ownedChat } from "../../../shared/conversations/verbs";
import { AppError } from "../../../shared/core/errors";
import { redisKeys } from "../../../shared/core/redis";
import { unavailable } from "../../../shared/core/unavailable";
import { callerOf } from "../../requestState";
import { turnEventStream, UI_STREAM_HEADERS } from "../../sse/turnStream";
import { type Mount, V1 } from "../mount";

const ChatParams = t.Object({ chatid: t.String() });

/** The health chat: a turn is queued and run by a worker; this relays it (SSE) or waits for it (JSON). */
export function chatRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/chat${mount.suffix}` })
    .post(
      `${mount.base}/health/chat`,
      async ({ request, body }) => {
        const { principal } = callerOf(request);
        const prepared = await prepareTurn(deps, principal, body);
        const { turn } = prepared;
        if (body.stream) {
          // The relay subscribes while the message is stored and the turn queued; a failure of
          // either is an error status (503) here, and the relay is cancelled.
          const submitted = submitTurn(deps, prepared);
          const start = () => submitted.catch(() => {});
          const stream = turnEventStream(deps, turn.turnId, { afterSeq: 0, start });
          await submitted.catch(async (error) => {
            await stream.cancel();
            throw error;
          });
          // A Response passes through untouched; the schema below documents the JSON reply.
          return new Response(stream, { headers: { ...UI_STREAM_HEADERS, "x-chat-id": turn.chatId } }) as never;
        }
        return runTurnToEnd(deps, prepared);
      },
      {
        body: ChatRequestSchema,
        response: { 200: ChatReplySchema },
        detail: {
          tags: mount.tags("Health chat"),
          summary: "Send a message to the health assistant",
          description:
            "stream: false → the JSON reply. stream: true → an SSE stream of AI SDK UI message chunks (`data: {json}` … `data: [DONE]`, header x-vercel-ai-ui-message-stream: v1); X-Chat-Id comes with the headers. Tools run on the server. If the message cannot be stored or the turn queued, the answer is 503 (before any stream) and nothing is kept.",
          security: mount.security,
        },
      },
    )
    .get(
      `${mount.base}/health/chat/:chatid`,
      async ({ request, params }) => {
        const conversation = await getConversation(deps, callerOf(request).principal, params.chatid);
        // A research chat is not a health conversation: on this path it does not exist.
        if (conversation.surface !== "health")
          throw new AppError("NOT_FOUND", `No health chat with id ${params.chatid}.`);
        return conversation;
      },
      {
        params: ChatParams,
        response: ConversationSchema,
        detail: {
          tags: mount.tags("Health chat"),
          summary: "A stored health conversation",
          security: mount.security,
        },
      },
    )
    .get(
      `${mount.base}/health/chat/:chatid/stream`,
      async ({ request, params, query, set }) => {
        const chat = await ownedChat(deps, callerOf(request).principal, params.chatid);
        const turnId = await deps.redis
          .get(redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(chat.id))
          .catch(unavailable("Redis"));
        if (!turnId) {
          set.status = 204;
          return null;
        }
        const header = request.headers.get("last-event-id");
        const afterSeq = Number(header ?? query.after ?? 0) || 0;
        return new Response(turnEventStream(deps, turnId, { afterSeq }), {
          headers: { ...UI_STREAM_HEADERS, "x-chat-id": chat.id },
        });
      },
      {
        params: ChatParams,
        query: t.Object({ after: t.Optional(t.Integer({ minimum: 0, description: "Same as Last-Event-ID." })) }),
        detail: {
          tags: mount.tags("Health chat"),
          summary: "Re-attach to the turn in progress",
          description:
            "Replays chunks after Last-Event-ID (or `after`), then continues live. 204 when no turn is in progress.",
          security: mount.security,
        },
      },
    );
}
