import { Elysia, t } from "elysia";
import { contextFor } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import {
  listChats,
  patchChat,
  readSharedChat,
  removeChat,
  revokeChatShares,
  shareChat,
} from "../../shared/conversations/chats";
import {
  ChatListSchema,
  ChatPatchSchema,
  ChatSummarySchema,
  ConversationSchema,
} from "../../shared/conversations/schemas";
import { Text } from "../../shared/core/text";
import { failures } from "../openapi/declare";
import { ctxOf, stateOf } from "../requestState";
import { type Mount, V1 } from "./mount";

const ChatParams = t.Object({ chatid: t.String() });
const Surface = t.Union([t.Literal("health"), t.Literal("research")]);
/**
 * Conversations across surfaces and read-only share links. The website mounts all but the public
 * share reader, which needs no credentials and so only exists under v1.
 */
export function chatsRoutes(deps: Deps, mount: Mount = V1) {
  const detail = (summary: string, description?: string) =>
    failures({ tags: mount.tags("Chats"), summary, ...(description ? { description } : {}) }, "NOT_FOUND");
  const routes = new Elysia({ name: `routes/chats${mount.suffix}` })
    .get(`${mount.base}/chats`, ({ request, query }) => listChats(ctxOf(deps, request), query), {
      query: t.Object({
        surface: Surface,
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
        cursor: t.Optional(Text({ minLength: 1, maxLength: 200 })),
      }),
      response: ChatListSchema,
      detail: {
        tags: mount.tags("Chats"),
        summary: "List chats, newest first",
        description: "Follow next_cursor with the same limit.",
      },
    })
    .patch(
      `${mount.base}/chats/:chatid`,
      ({ request, params, body }) => patchChat(ctxOf(deps, request), { chatId: params.chatid, patch: body }),
      {
        params: ChatParams,
        body: ChatPatchSchema,
        response: ChatSummarySchema,
        detail: detail("Rename, pin or archive a chat"),
      },
    )
    .delete(`${mount.base}/chats/:chatid`, ({ request, params }) => removeChat(ctxOf(deps, request), params.chatid), {
      params: ChatParams,
      response: t.Object({ deleted: t.Literal(true) }),
      detail: detail("Delete a chat and its messages"),
    })
    .post(
      `${mount.base}/chats/:chatid/share`,
      ({ request, params, set }) => {
        set.status = 201;
        return shareChat(ctxOf(deps, request), params.chatid);
      },
      {
        params: ChatParams,
        response: { 201: t.Object({ token: t.String(), url: t.String() }) },
        detail: detail(
          "Create a read-only share link",
          "The link shows the conversation without replies that used the profile, logs or lab results.",
        ),
      },
    )
    .delete(
      `${mount.base}/chats/:chatid/share`,
      ({ request, params }) => revokeChatShares(ctxOf(deps, request), params.chatid),
      {
        params: ChatParams,
        response: t.Object({ revoked: t.Integer() }),
        detail: detail("Revoke every share link of a chat"),
      },
    );
  if (mount !== V1) return routes;
  return routes.get(
    "/api/v1/shared/:token",
    ({ request, params }) => readSharedChat(contextFor(deps, stateOf(request).requestId), params.token),
    {
      params: t.Object({ token: t.String() }),
      response: ConversationSchema,
      detail: failures({ tags: ["Chats"], summary: "A shared conversation (no key needed)" }, "NOT_FOUND"),
    },
  );
}
