import { Elysia, t } from "elysia";
import type { Deps } from "../../shared/context/deps";
import {
  ChatListSchema,
  ChatPatchSchema,
  ChatSummarySchema,
  ConversationSchema,
} from "../../shared/conversations/schemas";
import {
  listChats,
  patchChat,
  readSharedChat,
  removeChat,
  revokeChatShares,
  shareChat,
} from "../../shared/conversations/verbs";
import { publicUrl } from "../../shared/core/env";
import { ModelInfoSchema, modelsForPlan } from "../../shared/llm/models";
import { callerOf } from "../requestState";
import { type Mount, V1 } from "./mount";

const ChatParams = t.Object({ chatid: t.String() });
const Surface = t.Union([t.Literal("health"), t.Literal("research")]);
/**
 * Conversations across surfaces, the model list, and read-only share links. The website mounts
 * all but the public share reader, which needs no credentials and so only exists under v1.
 */
export function chatsRoutes(deps: Deps, mount: Mount = V1) {
  const detail = (summary: string, description?: string) => ({
    tags: mount.tags("Chats"),
    summary,
    ...(description ? { description } : {}),
    security: mount.security,
  });
  const routes = new Elysia({ name: `routes/chats${mount.suffix}` })
    .get(
      `${mount.base}/models`,
      ({ request }) => ({
        surface: "health" as const,
        models: modelsForPlan(deps.models, callerOf(request).principal.plan),
      }),
      {
        query: t.Object({ surface: t.Literal("health", { description: "Only health models exist." }) }),
        response: t.Object({ surface: t.Literal("health"), models: t.Array(ModelInfoSchema) }),
        detail: detail("Models the caller's plan can run"),
      },
    )
    .get(`${mount.base}/chats`, ({ request, query }) => listChats(deps, callerOf(request).principal, query), {
      query: t.Object({
        surface: Surface,
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
        cursor: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
      }),
      response: ChatListSchema,
      detail: detail("List chats, newest first", "Follow next_cursor with the same limit."),
    })
    .patch(
      `${mount.base}/chats/:chatid`,
      ({ request, params, body }) => patchChat(deps, callerOf(request).principal, params.chatid, body),
      {
        params: ChatParams,
        body: ChatPatchSchema,
        response: ChatSummarySchema,
        detail: detail("Rename, pin or archive a chat"),
      },
    )
    .delete(
      `${mount.base}/chats/:chatid`,
      ({ request, params }) => removeChat(deps, callerOf(request).principal, params.chatid),
      {
        params: ChatParams,
        response: t.Object({ deleted: t.Literal(true) }),
        detail: detail("Delete a chat and its messages"),
      },
    )
    .post(
      `${mount.base}/chats/:chatid/share`,
      ({ request, params, set }) => {
        set.status = 201;
        return shareChat(deps, callerOf(request).principal, params.chatid, publicUrl(deps.env));
      },
      {
        params: ChatParams,
        response: { 201: t.Object({ token: t.String(), url: t.String() }) },
        detail: detail(
          "Create a read-only share link",
          "The link shows the conversation without replies that used the profile or logs.",
        ),
      },
    )
    .delete(
      `${mount.base}/chats/:chatid/share`,
      ({ request, params }) => revokeChatShares(deps, callerOf(request).principal, params.chatid),
      {
        params: ChatParams,
        response: t.Object({ revoked: t.Integer() }),
        detail: detail("Revoke every share link of a chat"),
      },
    );
  if (mount !== V1) return routes;
  return routes.get("/api/v1/shared/:token", ({ params }) => readSharedChat(deps, params.token), {
    params: t.Object({ token: t.String() }),
    response: ConversationSchema,
    detail: { tags: ["Chats"], summary: "A shared conversation (no key needed)" },
  });
}
